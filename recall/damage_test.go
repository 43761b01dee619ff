package recall_test

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
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// damagedLexical builds an on-disk index of 3,000 documents in three
// batches, overwrites 200 seeded random bytes of its largest segment file
// and returns its path.
func damagedLexical(t *testing.T, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lexical")
	lex, err := recall.OpenLexical(path)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("refund train ticket porto lyon sister hotel cat allergy booking window coach seat night morning weather garden tomato recipe invoice")
	for b := range 3 {
		var docs []recall.Doc
		for i := range 1000 {
			docs = append(docs, recall.Doc{ID: fmt.Sprintf("b%d-m%d", b, i), ThreadID: fmt.Sprint("t", i%10), ResourceID: fmt.Sprint("r", i%3), Seq: int64(i + 1), Role: "user",
				Content: fmt.Sprintf("%s %s %s note %d", words[i%len(words)], words[(i*7+b)%len(words)], words[(i*3)%len(words)], i)})
		}
		if err := lex.Index(docs); err != nil {
			t.Fatal(err)
		}
	}
	if err := lex.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(path, "store", "*.zap"))
	size := func(p string) int64 { fi, _ := os.Stat(p); return fi.Size() }
	slices.SortFunc(segs, func(a, b string) int { return int(size(b) - size(a)) })
	buf, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 12))
	for range 200 {
		buf[r.IntN(len(buf))] = byte(r.IntN(256))
	}
	if err := os.WriteFile(segs[0], buf, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLexicalDamage: on a garbled segment file, every Lexical method
// returns (nil or an error matching ErrCorrupt) instead of panicking inside
// zapx or waiting forever for scorch's merger, and a damage met once makes
// Damaged report it and every later call fail fast.
func TestLexicalDamage(t *testing.T) {
	ctx := context.Background()
	damaged := 0
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("Seed", seed), func(t *testing.T) {
			path := damagedLexical(t, seed)
			lex, err := recall.OpenLexical(path)
			if err != nil {
				if !errors.Is(err, recall.ErrCorrupt) {
					t.Fatalf("open: %v, want nil or ErrCorrupt", err)
				}
				damaged++
				return
			}
			defer lex.Close()
			ok := func(what string, err error) {
				t.Helper()
				if err != nil && !errors.Is(err, recall.ErrCorrupt) {
					t.Errorf("%s: %v, want nil or ErrCorrupt", what, err)
				}
			}
			_, err = lex.IDs(ctx)
			ok("IDs", err)
			_, err = lex.Count()
			ok("Count", err)
			done := make(chan error, 1)
			go func() { done <- lex.Purge(ctx) }()
			select {
			case err := <-done:
				ok("Purge", err)
			case <-time.After(90 * time.Second):
				t.Fatal("Purge still waiting after 90 s")
			}
			if lex.Damaged() != nil {
				damaged++
				if err := lex.Delete([]string{"b0-m1"}); !errors.Is(err, recall.ErrCorrupt) {
					t.Errorf("Delete on a damaged index: %v, want ErrCorrupt at once", err)
				}
			}
		})
	}
	if damaged == 0 {
		t.Error("no seed damaged the index: the test no longer exercises damage")
	}
	t.Logf("%d of 6 seeds damaged the index", damaged)
}

// TestOpenVerifiesChecksums: a garbled segment that the index's snapshot
// names is found by its checksum before bleve reads it (zapx may otherwise
// allocate terabytes from a garbled size and kill the process), while a
// garbled segment file that no snapshot names (one a crash left half
// written) does not make the index corrupt.
func TestOpenVerifiesChecksums(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("Seed", seed), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lexical")
			lex, err := recall.OpenLexical(path)
			if err != nil {
				t.Fatal(err)
			}
			var docs []recall.Doc
			for i := range 2000 {
				docs = append(docs, recall.Doc{ID: fmt.Sprint("m", i), ThreadID: "t", ResourceID: "r", Seq: int64(i + 1), Role: "user",
					Content: fmt.Sprintf("train ticket porto note %d", i)})
			}
			if err := lex.Index(docs); err != nil {
				t.Fatal(err)
			}
			live, err := lex.SegmentFiles(ctx)
			if err != nil || len(live) == 0 {
				t.Fatalf("segment files: %v %v", live, err)
			}
			if err := lex.Close(); err != nil {
				t.Fatal(err)
			}
			// A stray garbled file no snapshot names: the index still opens.
			stray := filepath.Join(path, "store", "00000000ffff.zap")
			if err := os.WriteFile(stray, []byte("half written segment"), 0o600); err != nil {
				t.Fatal(err)
			}
			lex, err = recall.OpenLexical(path)
			if err != nil {
				t.Fatalf("open with a stray file: %v", err)
			}
			lex.Close()
			os.Remove(stray)
			buf, err := os.ReadFile(live[0])
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(seed, 7))
			i := r.IntN(len(buf) - 4)
			buf[i] ^= byte(1 + r.IntN(255))
			if err := os.WriteFile(live[0], buf, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = recall.OpenLexical(path)
			if !errors.Is(err, recall.ErrCorrupt) || !strings.Contains(err.Error(), "checksum mismatch") {
				t.Fatalf("open with byte %d of %s garbled: %v, want ErrCorrupt naming the checksum", i, filepath.Base(live[0]), err)
			}
		})
	}
}
