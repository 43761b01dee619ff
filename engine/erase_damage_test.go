package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// markLexicalDamaged marks e's open lexical index damaged as scorch's
// merger does when it fails on a segment (recall's asynchronous error
// callback, registered under "mnemo-recall" and naming the index by its
// store directory).
func markLexicalDamaged(t *testing.T, e *engine.Engine) {
	t.Helper()
	cb := scorch.RegistryAsyncErrorCallbacks["mnemo-recall"]
	if cb == nil {
		t.Fatal("recall's scorch error callback is not registered")
	}
	cb(errors.New("test: merge failed"), filepath.Join(e.Dir(), engine.LexicalDir, "store"))
}

// TestEraseDuringDamageRecovery: an erasure whose index removals are still
// pending when the lexical index is found damaged (the drainer held the
// drain lock; whichever drain takes it next quarantines the index and
// queues the rebuild) completes, and afterwards no file under the data
// directory holds the erased turn's text, its vector's float32 encoding or
// its int8 codes, and a search returns no erased message. The resource's
// shard snapshot holds all three, and only the removal of an index
// (delete) row deletes it: the recovery replaced every outbox row, the
// erasure's delete rows included, by the rebuild's index rows, and the
// snapshot stayed.
func TestEraseDuringDamageRecovery(t *testing.T) {
	ctx := context.Background()
	const secretTurn = "my bank pin is " + secretToken + " keep it safe"
	f32, codes := vectorBytes(t, secretTurn)
	for _, kind := range []string{"messages", "thread", "resource"} {
		t.Run(kind, func(t *testing.T) {
			e := eraseFixture(t, enginetest.SQLite, engine.Config{RecallTuning: recall.Tuning{SnapshotMin: 1}})
			dir := e.Dir()
			snaps := filepath.Join(dir, engine.SnapshotDir)
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: "r", Messages: []engine.Message{
				user("k1", "the pin of the garden gate is painted green"),
			}}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the snapshot of r with the secret turn's text and vector", func() bool {
				return len(filesContaining(t, snaps, secretToken)) > 0 && len(filesContaining(t, snaps, string(f32))) > 0 &&
					len(filesContaining(t, snaps, string(codes))) > 0
			})
			release := e.HoldDrain()
			markLexicalDamaged(t, e)
			type result struct {
				res *engine.EraseResult
				err error
			}
			done := make(chan result, 1)
			go func() {
				var r result
				switch kind {
				case "messages":
					r.res, r.err = e.DeleteMessages(ctx, "m3", "m5")
				case "thread":
					r.res, r.err = e.DeleteThread(ctx, "t")
				case "resource":
					r.res, r.err = e.DeleteResource(ctx, "r")
				}
				done <- r
			}()
			waitFor(t, "the erasure's delete rows", func() bool {
				var n int
				if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = 'delete'`).Scan(&n); err != nil {
					t.Error(err)
					return true
				}
				return n > 0
			})
			release()
			r := <-done
			if r.err != nil {
				t.Fatalf("erasure: %v", r.err)
			}
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "bank pin " + secretToken, Options: recall.Options{TopK: 10}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if slices.Contains(r.res.Messages, h.MessageID) {
					t.Fatalf("a search after the recovery returned the erased %s", h.MessageID)
				}
			}
			for name, tok := range map[string]string{"text": secretToken, "float32 vector": string(f32), "int8 codes": string(codes)} {
				if hits := filesContaining(t, dir, tok); len(hits) > 0 {
					t.Fatalf("the erased turn's %s is still in %v", name, hits)
				}
			}
		})
	}
}
