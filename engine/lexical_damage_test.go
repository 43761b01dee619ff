package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// damageBound is how long an operation on a damaged index may take at most
// (the machine is loaded; a healthy run takes well under a second).
const damageBound = 90 * time.Second

// segmentFixture stores 3,000 messages over 3 resources in several index
// batches, thread "t0" holding secretToken, then merges the lexical index
// into one segment file (recall's Purge: no merge is left for scorch's
// merger to plan, at Open either) and closes the engine. It returns the
// directory and the path, relative to it, of the one segment file the
// index reads: the store directory may also hold files of older snapshots
// that scorch has not removed yet, and which of them linger depends on the
// merger's timing.
func segmentFixture(t *testing.T) (dir, live string) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("refund train ticket porto lyon sister hotel cat allergy booking window coach seat night morning weather garden tomato recipe invoice")
	for batch := range 3 {
		for th := range 10 {
			var msgs []engine.Message
			for i := range 100 {
				text := fmt.Sprintf("%s %s %s message %d of batch %d", words[(i+th)%len(words)], words[(i*7+batch)%len(words)], words[(i*3+th)%len(words)], i, batch)
				if th == 0 && i == 3 {
					text += " " + secretToken
				}
				msgs = append(msgs, user(fmt.Sprintf("b%d-t%d-m%d", batch, th, i), text))
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", th), ResourceID: fmt.Sprintf("r%d", th%3), Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.PurgeLexical(ctx); err != nil {
		t.Fatal(err)
	}
	segs := liveSegments(t, e)
	if len(segs) != 1 {
		t.Fatalf("after the purge the index reads %d segment files, want 1: %v", len(segs), segs)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	live, err = filepath.Rel(dir, segs[0])
	if err != nil {
		t.Fatal(err)
	}
	return dir, live
}

// garbleSegment overwrites 200 random bytes of the segment file at live
// (relative to dir; the one the index reads, see segmentFixture), seeded:
// the same damage every run.
func garbleSegment(t *testing.T, dir, live string, seed uint64) {
	t.Helper()
	path := filepath.Join(dir, live)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 12))
	for range 200 {
		b[r.IntN(len(b))] = byte(r.IntN(256))
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// withinBound runs fn and fails the test when it takes longer than damageBound
// (the goroutine is left behind: the old code hung forever).
func withinBound(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(damageBound):
		t.Fatalf("%s did not return within %s", what, damageBound)
	}
}

// indexHolds reports whether a file under the lexical index holds s.
func indexHolds(t *testing.T, dir, s string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(filepath.Join(dir, "index"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(s)) {
				found = true
			}
		}
		return nil
	})
	return found
}

// copyDir copies the regular files of the tree at src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// openWithin opens dir within damageBound and returns the engine and the
// events published by Open.
func openWithin(t *testing.T, dir string, events chan engine.Event) (*engine.Engine, []engine.Event) {
	t.Helper()
	var e *engine.Engine
	var err error
	withinBound(t, "Open", func() {
		e, err = engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Events: events})
	})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, drainEvents(events)
}

// opensCleanly reports whether plain bleve opens the index of dir and
// answers a count and a one-hit search: the checks that found damage at
// Open before, so a damage that passes them was found only in use.
func opensCleanly(t *testing.T, dir string) (ok bool) {
	t.Helper()
	tmp := t.TempDir()
	copyDir(t, filepath.Join(dir, engine.LexicalDir), tmp)
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	idx, err := bleve.Open(tmp)
	if err != nil {
		return false
	}
	defer idx.Close()
	if _, err := idx.DocCount(); err != nil {
		return false
	}
	_, err = idx.Search(bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 1, 0, false))
	return err == nil
}

// TestDamagedSegment: 200 random bytes of the segment file the index reads
// are overwritten (issue 12, item 4), with six seeds. Some damage is found
// when the index opens (and was quarantined before); most only when a
// document or a merge reads the garbled bytes (which seeds are which can
// differ between builds: the merged file's document order follows the
// fixture's merge history; 5 of 6 open cleanly in plain runs, 4 with -race) — there, Check panicked inside zapx, an
// erasure hung forever in the purge's force merge, and so did every later
// Open, which resumes the erasure (seen: the erasure of seed 1 hung). Now
// every operation returns, a damage found in use is reported
// (EventQuarantined; Check lists it) and the index is rebuilt from SQLite,
// and the erasure completes: the erased text is in no index file.
//
// SQLite only: it damages the bleve index's segment files.
func TestDamagedSegment(t *testing.T) {
	ctx := context.Background()
	fixture, live := segmentFixture(t)
	subtle := 0
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("Seed", seed), func(t *testing.T) {
			damaged := t.TempDir()
			copyDir(t, fixture, damaged)
			garbleSegment(t, damaged, live, seed)
			clean := opensCleanly(t, damaged)
			if clean {
				subtle++
			}

			// Erase first: the purge's merge meets the damage.
			dir := t.TempDir()
			copyDir(t, damaged, dir)
			events := make(chan engine.Event, 64)
			e, atOpen := openWithin(t, dir, events)
			if !clean && !hasEvent(atOpen, engine.EventQuarantined) {
				t.Error("an index that bleve cannot read was not quarantined at open")
			}
			withinBound(t, "Search", func() {
				if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r0", Query: "refund porto hotel", Options: recall.Options{TopK: 3}}); err != nil {
					t.Errorf("search: %v", err)
				}
			})
			withinBound(t, "DeleteThread", func() {
				if _, err := e.DeleteThread(ctx, "t0"); err != nil {
					t.Errorf("erase on a damaged index: %v", err)
				}
			})
			withinBound(t, "Check", func() {
				if err := e.Check(ctx); err != nil {
					t.Errorf("check after the erasure: %v", err)
				}
			})
			if indexHolds(t, dir, secretToken) {
				t.Error("the erased text is still in an index file")
			}
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r1", Query: "refund porto", Options: recall.Options{TopK: 3}})
			if err != nil || len(res.Hits) == 0 || res.Retrieval.Lexical != "ok" {
				t.Fatalf("search after the erasure: %v %+v", err, res)
			}

			// Check first: it reads every document.
			dir = t.TempDir()
			copyDir(t, damaged, dir)
			e, _ = openWithin(t, dir, events)
			var cerr error
			withinBound(t, "Check", func() { cerr = e.Check(ctx) })
			// The damage is reported when Check's own reading finds it;
			// the drainer may have found and repaired it first (an event).
			var ce *engine.CheckError
			if cerr != nil && (!errors.As(cerr, &ce) || !strings.Contains(cerr.Error(), "damaged")) {
				t.Fatalf("check: %v, want nil or the damage reported", cerr)
			}
			withinBound(t, "Check", func() {
				if err := e.Check(ctx); err != nil {
					t.Errorf("second check, after the rebuild: %v", err)
				}
			})
		})
	}
	if subtle == 0 {
		t.Error("no seed damaged the index so that it opens cleanly: the test no longer exercises damage found in use (change the fixture or the seeds)")
	}
	t.Logf("%d of 6 damaged indexes open cleanly", subtle)
}
