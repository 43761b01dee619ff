package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRestoredSearchStatus: the first search of a restored backup (no
// index directory: every message is queued for indexing) answers from the
// resource's in-memory shard, loaded from the database and its stored
// embeddings, so it reports both channels "ok" and no note, although the
// drainer (held here) has indexed nothing; it said "degraded: index
// catching up (0 of N)" while listing every hit. A message appended after
// the shard loaded, which the shard does not hold until the drainer adds
// it, still makes both channels catching up.
func TestRestoredSearchStatus(t *testing.T) {
	ctx := context.Background()
	src := enginetest.MustOpen(t, engine.Config{})
	const n, per = 3000, 500 // six drainer batches: the hold below comes before the last
	for b := 0; b < n/per; b++ {
		msgs := make([]engine.Message, per)
		for i := range msgs {
			k := b*per + i
			msgs[i] = user(fmt.Sprintf("m%d", k), fmt.Sprintf("the night train to porto, turn %d", k))
		}
		if _, err := src.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "restored")
	if _, err := engine.Backup(ctx, engine.Config{Dir: src.Dir()}, dest, engine.BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var once sync.Once
	unhold := e.HoldDrain()
	release := func() { once.Do(unhold) }
	defer release()
	var queued int
	if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = 'index'`).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if queued == 0 {
		t.Fatalf("the restored copy's drainer indexed all %d messages before the hold: the test proves nothing", n)
	}
	search := func(q string) *recall.Result {
		t.Helper()
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: q, Options: recall.Options{TopK: 5}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := search("night train porto")
	if got, want := len(res.Hits), 5; got != want {
		t.Fatalf("first search of the restored copy: %d hits, want %d", got, want)
	}
	if got := res.Retrieval; got.Lexical != recall.StatusOK || got.Vector != recall.StatusOK || got.Note != "" {
		t.Errorf("first search of the restored copy (%d of %d messages queued, all in the shard): retrieval %+v, want both ok and no note", queued, n, got)
	}
	if err := appendOne(ctx, e, "r", "t", "a zeppelin over lisbon"); err != nil {
		t.Fatal(err)
	}
	got := search("zeppelin lisbon").Retrieval
	if got.Lexical != recall.StatusCatchingUp || got.Vector != recall.StatusCatchingUp {
		t.Errorf("a message appended after the shard loaded, not indexed yet: retrieval %+v, want both %q", got, recall.StatusCatchingUp)
	}
	release()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := search("zeppelin lisbon").Retrieval; got.Lexical != recall.StatusOK || got.Vector != recall.StatusOK || got.Note != "" {
		t.Errorf("caught up: retrieval %+v, want both ok and no note", got)
	}
}
