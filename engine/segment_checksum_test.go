package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckFindsGarbledSegment: 200 consecutive random bytes of a segment file that
// bleve still opens and searches (the damage lies in bytes no listing
// reads: postings, stored text) passed Check — through the CLI, 6 of 6
// garbled segments printed ok. Check now verifies each segment file's
// checksum (zap ends every file with the CRC-32 of the rest), so the damage
// is reported, the index quarantined and rebuilt, and the next Check
// passes.
func TestCheckFindsGarbledSegment(t *testing.T) {
	ctx := context.Background()
	fixture := segmentFixture(t)
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("Seed", seed), func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, fixture, dir)
			garbleRun(t, dir, seed)
			events := make(chan engine.Event, 64)
			e, atOpen := openWithin(t, dir, events)
			var cerr error
			withinBound(t, "Check", func() { cerr = e.Check(ctx) })
			var ce *engine.CheckError
			reported := errors.As(cerr, &ce) && strings.Contains(cerr.Error(), "damaged") && ce.Rebuilt != ""
			found := hasEvent(append(atOpen, drainEvents(events)...), engine.EventQuarantined)
			if !reported && !found {
				t.Fatalf("check on a garbled segment: %v, and no quarantine: want the damage found", cerr)
			}
			if cerr != nil && !reported {
				t.Fatalf("check: %v, want nil or the damage reported", cerr)
			}
			withinBound(t, "Check", func() {
				if err := e.Check(ctx); err != nil {
					t.Errorf("check after the rebuild: %v", err)
				}
			})
		})
	}
}

// garbleRun overwrites 200 consecutive bytes, at a seeded offset, of the
// largest segment file with seeded random bytes (a bad sector or a stray
// write; garbleSegment scatters its bytes instead).
func garbleRun(t *testing.T, dir string, seed uint64) {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, engine.LexicalDir, "store", "*.zap"))
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
	for i := range 200 {
		b[at+i] = byte(r.IntN(256))
	}
	if err := os.WriteFile(segs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}
