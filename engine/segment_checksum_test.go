package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckFindsGarbledSegment: 200 consecutive random bytes written into
// a segment file that bleve still reads (the damage lies in bytes no id
// listing reads: postings, stored text) passed Check — through the CLI, 6
// of 6 garbled segments printed ok and searches went on over them. Check
// now verifies each live segment file's checksum (zap ends every file with
// the CRC-32 of the rest), so the damage is reported, the index quarantined
// and rebuilt, and the next Check passes. The bytes are written under an
// open engine, in place (a stray write, a bad sector), so that no merge
// has read the segment into a new one before Check runs.
//
// SQLite only: the bleve index's segment files.
func TestCheckFindsGarbledSegment(t *testing.T) {
	ctx := context.Background()
	fixture, _ := segmentFixture(t)
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("Seed", seed), func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, fixture, dir)
			events := make(chan engine.Event, 64)
			e, _ := openWithin(t, dir, events)
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			garbleRun(t, e, seed)
			var cerr error
			withinBound(t, "Check", func() { cerr = e.Check(ctx) })
			var ce *engine.CheckError
			if !errors.As(cerr, &ce) || !strings.Contains(cerr.Error(), "checksum mismatch") || ce.Rebuilt == "" {
				t.Fatalf("check on a garbled segment: %v; want the damage reported and the index rebuilt", cerr)
			}
			if !hasEvent(drainEvents(events), engine.EventQuarantined) {
				t.Error("no quarantine event")
			}
			withinBound(t, "Check", func() {
				if err := e.Check(ctx); err != nil {
					t.Errorf("check after the rebuild: %v", err)
				}
			})
		})
	}
}

// liveSegments waits until the segment files e's lexical index reads stay
// the same for 300 ms (no merge in flight) and returns them.
func liveSegments(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ctx := context.Background()
	prev, err := e.LexicalSegmentFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		time.Sleep(300 * time.Millisecond)
		cur, err := e.LexicalSegmentFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(prev, cur) {
			return cur
		}
		prev = cur
	}
	t.Fatal("the lexical index never settled")
	return nil
}

// garbleRun overwrites 200 consecutive bytes, at a seeded offset, of the
// largest live segment file with seeded random bytes (a bad sector or a
// stray write; garbleSegment scatters its bytes instead).
func garbleRun(t *testing.T, e *engine.Engine, seed uint64) {
	t.Helper()
	segs := liveSegments(t, e)
	if len(segs) == 0 {
		t.Fatal("no segment files")
	}
	size := func(p string) int64 { fi, _ := os.Stat(p); return fi.Size() }
	slices.SortFunc(segs, func(a, b string) int { return int(size(b) - size(a)) })
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 200))
	at := r.IntN(len(b) - 200)
	junk := make([]byte, 200)
	for i := range junk {
		junk[i] = byte(r.IntN(256))
	}
	// In place, without truncating: bleve maps the file.
	f, err := os.OpenFile(segs[0], os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(junk, int64(at)); err != nil {
		t.Fatal(err)
	}
}
