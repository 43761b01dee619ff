package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDrainCheckpoints: a drained batch is followed by a WAL checkpoint, so
// the appends' own commits rarely reach wal_autocheckpoint (whose
// checkpoint and fsyncs the committing append paid, on the single writer
// that sets an import's pace). 300 messages write far fewer WAL pages than
// the autocheckpoint's 1,000: before, mnemo.db kept its size of the open
// until Close.
//
// SQLite only: the database file's size.
func TestDrainCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(dir, engine.DatabaseFile)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		msgs := make([]engine.Message, 10)
		for j := range msgs {
			msgs[j] = user(fmt.Sprintf("m%03d-%d", i, j), fmt.Sprintf("turn %d of batch %d, about the heron by the weir", j, i))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if after.Size() <= before.Size() {
		t.Fatalf("mnemo.db is %d bytes after 300 messages drained, %d at open: the WAL was not checkpointed", after.Size(), before.Size())
	}
}
