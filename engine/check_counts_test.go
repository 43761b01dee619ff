package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestCheckCountsSingular: Check counts its findings in the singular when
// there is one ("1 outbox row still pending", "1 stored message missing
// from …"), in the plural otherwise; it said "1 outbox rows still pending"
// and "1 stored messages missing". The embedder is down, so each message's
// embedding stays owed: its outbox row pending, missing from the vector
// channel.
func TestCheckCountsSingular(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range []struct {
			n         int
			want, not []string
		}{
			{1, []string{"1 outbox row still pending", "1 stored message missing from the "}, []string{"1 outbox rows", "1 stored messages"}},
			{2, []string{"2 outbox rows still pending", "2 stored messages missing from the "}, nil},
		} {
			ctx := context.Background()
			e, err := engine.Open(ctx, be.Config(t, engine.Config{Embedder: failingEmbedder{}}))
			if err != nil {
				t.Fatal(err)
			}
			var msgs []engine.Message
			for i := range c.n {
				msgs = append(msgs, user(fmt.Sprintf("m%d", i), "the refund was approved"))
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			err = e.Check(ctx)
			e.Close()
			if err == nil {
				t.Fatalf("%d messages: Check passed with their embeddings owed", c.n)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%d messages: Check says %q, want %q in it", c.n, err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("%d messages: Check says %q, not %q", c.n, err, w)
				}
			}
		}
	})
}
