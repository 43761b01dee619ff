package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSharedBounds: on Postgres the bounds one engine stores
// (BoundsStore: mnemo serve --config) are those another applies
// (BoundsStored: mnemo mcp, ingest, expire on --db), its own Config giving
// none: its append past the stored quota is refused, Bounds reports them
// as stored, and storing other ones reports those replaced. Before, each
// process applied only its Config's, so a second process on the database
// stored past the quota every server refused.
func TestSharedBounds(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	want := engine.Bounds{Limits: engine.Limits{MaxContentBytes: 5000}, Retention: journal.Retention{KeepRuns: 3, MaxAge: time.Hour},
		Lifecycle: engine.Lifecycle{IdleTTL: 24 * time.Hour, Quota: engine.Quota{ResourceMessages: 2, Refuse: true}}}
	a := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStore,
		Limits: want.Limits, Retention: want.Retention, Lifecycle: want.Lifecycle})
	if b := a.Bounds(); !b.Stored || b.Replaced != nil {
		t.Fatalf("the storing engine's Bounds = %+v, want stored, replacing none", b)
	}
	b := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStored})
	got := b.Bounds()
	if !got.Stored || got.Limits != want.Limits || got.Retention != want.Retention || got.Lifecycle != want.Lifecycle {
		t.Fatalf("the reading engine's Bounds = %+v, want %+v, stored", got, want)
	}
	appendUser(t, b, "t1", "u1", "one")
	appendUser(t, b, "t1", "u1", "two")
	_, err := b.Append(ctx, engine.AppendRequest{ThreadID: "t1", Messages: []engine.Message{{Role: engine.RoleUser, Content: "three"}}})
	if !errors.Is(err, engine.ErrQuotaExceeded) {
		t.Fatalf("the third append through the reading engine: %v, want ErrQuotaExceeded", err)
	}
	own := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if got := own.Bounds(); got.Stored || got.Lifecycle.Quota.ResourceMessages != 0 {
		t.Errorf("BoundsOwn's Bounds = %+v, want its Config's", got)
	}
	same := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStore,
		Limits: want.Limits, Retention: want.Retention, Lifecycle: want.Lifecycle})
	if got := same.Bounds(); got.Replaced != nil {
		t.Errorf("storing the same bounds again: Replaced = %+v, want nil", got.Replaced)
	}
	other := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStore})
	if r := other.Bounds().Replaced; r == nil || r.Lifecycle != want.Lifecycle {
		t.Errorf("storing other bounds: Replaced = %+v, want the first ones", r)
	}
}

// TestSharedBoundsRefused: SharedBounds on a data directory is refused
// naming it, and stored bounds Open cannot apply (a member a later build
// wrote, a negative quota) are ErrInvalidBounds, not the defaults.
func TestSharedBoundsRefused(t *testing.T) {
	ctx := context.Background()
	_, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStored})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "SharedBounds" {
		t.Fatalf("SharedBounds on a directory: %v, want a *ValidationError naming SharedBounds", err)
	}
	dsn := pgtest.DSN(t)
	enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}}) // the schema
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, doc := range []string{`{"limits":{},"quota":{},"maxSessions":3}`, `{"limits":{},"quota":{"resourceBytes":-1}}`, `not json`} {
		if _, _, err := pgstore.SaveBounds(ctx, pool, doc, 1); err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, SharedBounds: engine.BoundsStored})
		if err == nil {
			e.Close()
		}
		if !errors.Is(err, engine.ErrInvalidBounds) {
			t.Errorf("stored %s: Open = %v, want ErrInvalidBounds", doc, err)
		}
	}
}
