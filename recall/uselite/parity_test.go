package uselite_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// modelDir returns the installed use-lite directory, or skips the test
// when the weights are absent (they are never committed; CI fetches them).
func modelDir(tb testing.TB) string {
	tb.Helper()
	root, err := models.Dir(nil)
	if err != nil {
		tb.Skipf("use-lite weights absent (%v); run `mnemo models fetch use-lite`", err)
	}
	dir := models.Path(root, uselite.ID)
	if _, err := os.Stat(filepath.Join(dir, uselite.ModelFile)); err != nil {
		tb.Skipf("use-lite weights absent in %s; run `mnemo models fetch use-lite`", dir)
	}
	return dir
}

// opened memoizes test Embedders by config: loading the weights is the
// slow part of these tests, and an Embedder is safe for concurrent use.
var opened sync.Map // uselite.Config -> *uselite.Embedder

func openEmbedder(tb testing.TB, cfg uselite.Config) *uselite.Embedder {
	tb.Helper()
	cfg.Dir = modelDir(tb)
	if e, ok := opened.Load(cfg); ok {
		return e.(*uselite.Embedder)
	}
	e, err := uselite.Open(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	opened.Store(cfg, e)
	return e
}

func TestTokenizerParity(t *testing.T) {
	ref := loadReference(t)
	e := openEmbedder(t, uselite.Config{})
	for i, tc := range ref.Texts {
		if got := e.Tokenizer().Encode(tc.Text); !slices.Equal(got, tc.Tokens) {
			t.Errorf("text %d %q:\n got %v\nwant %v", i, tc.Text, got, tc.Tokens)
		}
	}
}

func TestEmbedParity(t *testing.T) {
	ref := loadReference(t)
	texts := make([]string, len(ref.Texts))
	for i, tc := range ref.Texts {
		texts[i] = tc.Text
	}
	// ChunkRows 1 embeds every text in its own pass; the default stacks
	// several texts per pass. Both must match the reference.
	for _, cfg := range []uselite.Config{{}, {ChunkRows: 1, Workers: 2}} {
		e := openEmbedder(t, cfg)
		vecs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(vecs), len(texts); got != want {
			t.Fatalf("vectors=%d, want %d", got, want)
		}
		var worst float64
		for i, tc := range ref.Texts {
			if got, want := len(vecs[i]), uselite.Dims; got != want {
				t.Fatalf("text %d: dims=%d, want %d", i, got, want)
			}
			for j, want := range tc.Vector {
				d := math.Abs(float64(vecs[i][j]) - want)
				worst = max(worst, d)
				if d > 1e-5 {
					t.Fatalf("chunkRows=%d text %d %q component %d: got %v, want %v (|diff| %g > 1e-5)",
						cfg.ChunkRows, i, tc.Text, j, vecs[i][j], want, d)
				}
			}
		}
		t.Logf("chunkRows=%d: largest |diff| over %d texts × %d components: %.3g", cfg.ChunkRows, len(texts), uselite.Dims, worst)
	}
}
