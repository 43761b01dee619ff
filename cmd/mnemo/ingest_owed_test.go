package main

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// heldHash is hash-384 under another id (hash-384's own vectors are
// derived on SQLite: stored before they are computed) whose Embed of a
// batch holding the held text waits until released, saying on entered
// that it does: the drainer stays on that batch, its rows queued, as an
// ingest interrupted mid-indexing leaves them.
type heldHash struct {
	recall.HashEmbedder
	text    string
	hold    chan struct{}
	entered chan struct{}
	once    sync.Once
}

func (h *heldHash) ID() string { return "held-384" }

func (h *heldHash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if slices.Contains(texts, h.text) {
		h.once.Do(func() { close(h.entered) })
		select {
		case <-h.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.HashEmbedder.Embed(ctx, texts)
}

// TestInterruptedIngestOwedLine: what an interrupted ingest adds to its
// last line (IngestCommand.unindexed) on each backend, with a stored
// message whose embedding is queued and an erased one whose removal from
// the indexes is queued: on SQLite both parts, the erasure's saying the
// index files still hold its text; on Postgres, whose erasures take
// their index entries with the rows, the embedding's only. Each names
// the check that completes it with the store's flag; the drain an ingest
// run again or that check begins with (SyncIndexes) leaves nothing owed.
// fix54 left the erasure part untested.
func TestInterruptedIngestOwedLine(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		emb := &heldHash{text: "the refund was approved", hold: make(chan struct{}), entered: make(chan struct{})}
		cfg := st.Config(engine.Config{Embedder: emb})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		release := sync.OnceFunc(func() { close(emb.hold) })
		defer release()
		add := func(id, text string) {
			t.Helper()
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{ID: id, Role: engine.RoleUser, Content: text}}}); err != nil {
				t.Fatal(err)
			}
		}
		add("m1", "the parcel left the depot")
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		add("m2", emb.text)
		select {
		case <-emb.entered:
		case <-time.After(time.Minute):
			t.Fatal("the drainer did not start embedding m2 within a minute")
		}
		eraseCut(t, e, cfg.Dir, "m1")

		c := &IngestCommand{Main: &Main{Dir: cfg.Dir, DB: cfg.Postgres}}
		want := "; 1 stored message has no embedding yet (search finds it by its words only until then)"
		if be.Name == "sqlite" {
			want += "; the index files still hold the text of 1 erased message (no search returns it)"
		}
		want += ": the same ingest run again completes the indexing first; to complete it alone, run: mnemo " + c.target().flag() + " check"
		if got := c.unindexed(ctx, e); got != want {
			t.Errorf("the interrupted ingest's owed part:\n got %q\nwant %q", got, want)
		}

		release()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if o, err := e.Owed(ctx); err != nil || o != (engine.Owed{}) {
			t.Errorf("drained: Owed = %+v, %v; want nothing", o, err)
		}
		if got := c.unindexed(ctx, e); got != "" {
			t.Errorf("drained: the owed part %q, want none", got)
		}
	})
}

// eraseCut erases message id on e with its context cancelled once the
// erasure committed (on SQLite: its index removal queued in dir's outbox,
// the purge then waiting for the held drainer), as an interrupt during
// its purge leaves it. On Postgres (dir "") the erasure completes.
func eraseCut(t *testing.T, e *engine.Engine, dir, id string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if dir != "" {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, engine.DatabaseFile)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		go func() {
			for ctx.Err() == nil {
				n := 0
				if db.QueryRow(`SELECT COUNT(*) FROM outbox WHERE op = 'delete'`).Scan(&n) == nil && n > 0 {
					cancel()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	_, err := e.DeleteMessages(ctx, id)
	if dir != "" && !errors.Is(err, engine.ErrEraseIncomplete) || dir == "" && err != nil {
		t.Fatalf("erase %s: %v", id, err)
	}
}
