package recall_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDamagedVectorSkipped: a stored embedding of the wrong length used to
// fail the resource's load, so every search failed, lexical ones too. Now
// the row is skipped, Config.Damaged names it and the vector channel says
// it is degraded.
func TestDamagedVectorSkipped(t *testing.T) {
	ctx := context.Background()
	docs := corpus(40, 3)
	f := newFixture(t, docs)
	var bad []string
	for _, d := range docs {
		if d.ResourceID == "r1" && len(bad) < 3 {
			bad = append(bad, d.ID)
		}
	}
	for i, id := range bad {
		dims, blob := 384, []byte{0, 0, 128, 63}
		if i == 1 {
			dims, blob = 1, []byte{0, 0, 128, 63}
		}
		if _, err := f.db.Exec(`UPDATE embeddings SET dims = ?, vector = ? WHERE message_id = ?`, dims, blob, id); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	ix, err := recall.NewIndex(recall.Config{Lexical: f.ix.Lexical(), Source: msgstore.New(f.db),
		Damaged: func(_ context.Context, res string, ids []string) {
			if res != "r1" {
				t.Errorf("Damaged for %s", res)
			}
			got = append(got, ids...)
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid, recall.ModeVector} {
		res, err := ix.Search(ctx, recall.Query{Text: "apple banana", ResourceID: "r1", Options: recall.Options{Mode: mode}})
		if err != nil {
			t.Fatalf("%s search: %v", mode, err)
		}
		if len(res.Hits) == 0 {
			t.Fatalf("%s search: no hits", mode)
		}
		if mode != recall.ModeLexical && !strings.Contains(res.Retrieval.Vector, "3 stored embeddings damaged") {
			t.Errorf("%s: vector status %q, want degraded naming 3 damaged", mode, res.Retrieval.Vector)
		}
	}
	slices.Sort(bad)
	if !slices.Equal(got, bad) {
		t.Errorf("Damaged got %v, want %v (once)", got, bad)
	}
	d0 := f.docs[bad[0]]
	vecs, _ := recall.HashEmbedder{}.Embed(ctx, []string{d0.Text()})
	if err := ix.AddVectors(ctx, "r1", bad[:1], vecs); err != nil {
		t.Fatal(err)
	}
	res, _ := ix.Search(ctx, recall.Query{Text: "apple", ResourceID: "r1"})
	if !strings.Contains(res.Retrieval.Vector, "2 stored embeddings damaged") {
		t.Errorf("after re-embedding one: vector status %q", res.Retrieval.Vector)
	}
}
