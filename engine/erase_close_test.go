package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestEraseDuringClose: an erasure whose purge Close overlaps (SQLite)
// returns nil or an error matching ErrClosed (and ErrEraseIncomplete),
// never the closed index's "recall: index is closed", and loses nothing:
// the thread stays erased, and the next Open completes the purge (no file
// of the directory holds the erased text; the lexical index answers).
// Close waits for the purge's merge (cancelled=false) unless its ctx has
// ended (cancelled=true: the index is closed under the merge). Before,
// Close closed the index under the merge and the erasure answered
// "engine: erasure committed but its physical purge is incomplete: recall:
// index is closed".
func TestEraseDuringClose(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancelled=%v", cancelled), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			e := enginetest.MustOpen(t, engine.Config{Dir: dir})
			appendUser(t, e, "t1", "u1", "the quokkaferry leaves at ten")
			appendUser(t, e, "t2", "u1", "the night train leaves at nine")
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			closed := make(chan error, 1)
			var once sync.Once
			engine.SetBeforeIndexPurge(e, func() {
				once.Do(func() { closeDuringPurge(t, e, cancelled, closed) })
			})
			_, err := e.DeleteThread(ctx, "t1")
			if err != nil && !errors.Is(err, engine.ErrClosed) {
				t.Errorf("DeleteThread overlapping Close: %v, want nil or ErrClosed", err)
			}
			if cancelled && !(errors.Is(err, engine.ErrClosed) && errors.Is(err, engine.ErrEraseIncomplete)) {
				t.Errorf("DeleteThread whose index Close closed: %v, want ErrClosed and ErrEraseIncomplete", err)
			}
			if err, ok := gaveWithin(closed, 20*time.Second); !ok || err != nil {
				t.Fatalf("Close: %v (returned: %v)", err, ok)
			}
			reopenAfterErase(t, dir)
		})
	}
}

// closeDuringPurge closes e (with a cancelled ctx when cancelled) from an
// erasure's purge that holds the index; Close's error goes to closed.
// Without cancelled, Close must wait for the purge.
func closeDuringPurge(t *testing.T, e *engine.Engine, cancelled bool, closed chan error) {
	cctx, cancel := context.WithCancel(context.Background())
	if cancelled {
		cancel()
	}
	done := make(chan error, 1)
	go func() {
		done <- e.CloseContext(cctx)
		cancel()
	}()
	if cancelled {
		closed <- <-done // Close does not wait: the index closes under the purge
		return
	}
	err, early := gaveWithin(done, 300*time.Millisecond)
	if early {
		t.Errorf("Close returned (%v) while an erasure's purge held the index", err)
		closed <- err
		return
	}
	go func() { closed <- <-done }()
}

// reopenAfterErase opens dir again: its Open completes any purge owed,
// after which no file holds the erased text, the thread stays erased and
// the kept message is found.
func reopenAfterErase(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir})
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte("quokkaferry")) {
			t.Errorf("%s holds the erased text after reopening", path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]int{"quokkaferry": 0, "night train": 1} {
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: query,
			Options: recall.Options{Mode: recall.ModeLexical, TopK: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if got := lexicalHits(res); got != want || strings.HasPrefix(res.Retrieval.Lexical, "unavailable") {
			t.Errorf("search %q after reopening: %d hits (%+v), want %d", query, got, res.Retrieval, want)
		}
	}
}
