package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestQueryTooLong: an explicit query longer than Limits.MaxQueryBytes is
// refused by Search and LoadContext with ErrQueryTooLong (an
// ErrInvalidInput naming the field "query"), before any recall runs; a
// query of exactly the limit is searched. Long stored messages are not
// affected: a user message longer than the limit is stored, and as
// LoadContext's implicit query (no Query given) its first MaxQueryBytes
// are searched.
func TestQueryTooLong(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Limits: engine.Limits{MaxQueryBytes: 64}})
	long := strings.Repeat("sardines ", 20) // 180 bytes
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "my cat likes sardines"}, {Role: "assistant", Content: "noted"}, {Role: "user", Content: long},
	}}); err != nil {
		t.Fatalf("a user message longer than the query limit is stored: %v", err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	opts := recall.Options{TopK: 2}
	for _, tc := range []struct {
		name  string
		query string
		run   func(q string) error
		ok    bool
	}{
		{"SearchAtLimit", strings.Repeat("a", 64), func(q string) error {
			_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: q, Options: opts})
			return err
		}, true},
		{"SearchOver", strings.Repeat("a", 65), func(q string) error {
			_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: q, Options: opts})
			return err
		}, false},
		{"SearchMessagesOver", strings.Repeat("a", 65), func(q string) error {
			_, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: "r", Query: q, Options: opts})
			return err
		}, false},
		{"LoadContextOver", strings.Repeat("a", 65), func(q string) error {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", Query: q, Recall: &opts})
			return err
		}, false},
		{"LoadContextImplicit", "", func(q string) error {
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 1, Recall: &opts})
			if err == nil && len(c.MemCtx.Query) > 64 {
				t.Errorf("implicit query of %d bytes, want the first 64", len(c.MemCtx.Query))
			}
			return err
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(tc.query)
			if tc.ok {
				if err != nil {
					t.Fatalf("err=%v, want none", err)
				}
				return
			}
			var ve *engine.ValidationError
			if !errors.Is(err, engine.ErrQueryTooLong) || !errors.Is(err, engine.ErrInvalidInput) || !errors.As(err, &ve) || ve.Field != "query" {
				t.Fatalf("err=%v, want ErrQueryTooLong, an ErrInvalidInput on field query", err)
			}
			if !strings.Contains(err.Error(), "64") || !strings.Contains(err.Error(), "65") {
				t.Fatalf("err=%q, want the limit and the length", err)
			}
		})
	}
}
