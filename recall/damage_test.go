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
