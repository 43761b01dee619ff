package recall_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// memStore is an in-memory Source and VectorStore: the documents of one
// resource and the vectors stored for them.
type memStore struct {
	mu   sync.Mutex
	docs []recall.Doc
	vecs map[string][]float32 // by message id (one embedder)
	puts int
}

func (m *memStore) ResourceDocs(_ context.Context, resourceID string, fn func(*recall.Doc) error) error {
	var out []recall.Doc
	for _, d := range m.docs {
		if d.ResourceID == resourceID {
			out = append(out, d)
		}
	}
	for i := range out {
		if err := fn(&out[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) ResourceVectors(_ context.Context, resourceID, _ string, fn func(string, []float32) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.docs {
		if v, ok := m.vecs[d.ID]; ok && d.ResourceID == resourceID {
			if err := fn(d.ID, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *memStore) Vectors(_ context.Context, _ string, dims int, ids []string) (map[string][]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]float32{}
	for _, id := range ids {
		if v, ok := m.vecs[id]; ok && len(v) == dims {
			out[id] = v
		}
	}
	return out, nil
}

func (m *memStore) PutVectors(_ context.Context, _ string, _ int, ids []string, vecs [][]float32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts++
	for i, id := range ids {
		m.vecs[id] = vecs[i]
	}
	return nil
}

// countingEmbedder is HashEmbedder counting the texts it embeds, failing
// with fail when set, or returning vectors of dims values when dims > 0.
type countingEmbedder struct {
	recall.HashEmbedder
	texts int
	fail  error
	dims  int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.fail != nil {
		return nil, c.fail
	}
	c.texts += len(texts)
	if c.dims > 0 {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, c.dims)
		}
		return out, nil
	}
	return c.HashEmbedder.Embed(ctx, texts)
}

func newIndexer(t *testing.T, emb recall.Embedder, docs []recall.Doc) (*recall.Indexer, *memStore) {
	t.Helper()
	st := &memStore{docs: docs, vecs: map[string][]float32{}}
	lex, err := recall.OpenLexical(filepath.Join(t.TempDir(), "lexical"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: st, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &recall.Indexer{Index: ix, Store: st}, st
}

func TestIndexerUpdate(t *testing.T) {
	ctx := context.Background()
	docs := corpus(12, 3)
	for i := range docs {
		docs[i].ResourceID = "r1"
	}
	ids := func() []string {
		var out []string
		for _, d := range docs {
			out = append(out, d.ID)
		}
		return out
	}

	t.Run("EmbedsWhatIsMissingAndIndexesBoth", func(t *testing.T) {
		emb := &countingEmbedder{}
		x, st := newIndexer(t, emb, docs)
		// A loaded collection receives the new vectors (AddVectors).
		if _, _, err := x.Index.VectorCount(ctx, "r1"); err != nil {
			t.Fatal(err)
		}
		out, err := x.Update(ctx, docs, true)
		if err != nil || out.Lexical != nil || out.EmbedErr != nil {
			t.Fatalf("Update: %+v, %v", out, err)
		}
		if out.Embedded != len(docs) || emb.texts != len(docs) || len(st.vecs) != len(docs) {
			t.Fatalf("embedded %d, embedder saw %d texts, stored %d; want %d", out.Embedded, emb.texts, len(st.vecs), len(docs))
		}
		lex, err := x.Index.Lexical().IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids() {
			if !lex[id] {
				t.Fatalf("%s not in the lexical index", id)
			}
		}
		if vecs, _, err := x.Index.VectorCount(ctx, "r1"); err != nil || vecs != len(docs) {
			t.Fatalf("loaded collection holds %d vectors (%v), want %d", vecs, err, len(docs))
		}
		// Again: every vector is stored, the embedder is not called.
		out, err = x.Update(ctx, docs, false)
		if err != nil || out.Embedded != 0 || emb.texts != len(docs) || st.puts != 1 {
			t.Fatalf("second Update: %+v, %v; embedder saw %d texts, %d puts", out, err, emb.texts, st.puts)
		}
	})

	t.Run("EmbedderFailureLeavesLexicalAndOwes", func(t *testing.T) {
		emb := &countingEmbedder{fail: errors.New("endpoint down")}
		x, st := newIndexer(t, emb, docs)
		out, err := x.Update(ctx, docs, true)
		if err != nil || out.Lexical != nil {
			t.Fatalf("Update: %+v, %v", out, err)
		}
		if !errors.Is(out.EmbedErr, recall.ErrEmbed) || len(out.Owed) != len(docs) || len(st.vecs) != 0 {
			t.Fatalf("EmbedErr %v, %d owed, %d stored; want ErrEmbed, %d owed, none stored", out.EmbedErr, len(out.Owed), len(st.vecs), len(docs))
		}
		lex, err := x.Index.Lexical().IDs(ctx)
		if err != nil || len(lex) != len(docs) {
			t.Fatalf("lexical index holds %d documents (%v), want %d", len(lex), err, len(docs))
		}
	})

	t.Run("WrongDimensionStoresNothing", func(t *testing.T) {
		emb := &countingEmbedder{dims: 3}
		x, st := newIndexer(t, emb, docs)
		_, err := x.Update(ctx, docs, false)
		if !errors.Is(err, recall.ErrDimension) || len(st.vecs) != 0 {
			t.Fatalf("Update: %v, %d stored; want ErrDimension, none stored", err, len(st.vecs))
		}
	})

	t.Run("CancelledWhileEmbedding", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		emb := &countingEmbedder{fail: context.Canceled}
		x, _ := newIndexer(t, emb, docs)
		out, err := x.Update(cctx, docs, false)
		if !errors.Is(err, context.Canceled) || len(out.Owed) != 0 {
			t.Fatalf("Update: %+v, %v; want context.Canceled and nothing owed", out, err)
		}
	})
}

// derivedStore is a memStore that keeps no vectors (recall.DerivedVectors):
// PutVectors records the ids as embedded, and its vectors are computed
// from the documents when read, as msgstore does for hash-384 on SQLite.
type derivedStore struct{ *memStore }

func (derivedStore) Derived(string, int) bool { return true }

func (d derivedStore) PutVectors(_ context.Context, _ string, _ int, ids []string, _ [][]float32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.puts++
	for _, id := range ids {
		for _, doc := range d.docs {
			if doc.ID == id {
				v, _ := recall.HashEmbedder{}.Embed(context.Background(), []string{doc.Text()})
				d.vecs[id] = v[0]
			}
		}
	}
	return nil
}

// TestIndexerDerivedEmbedsLoadedOnly: with a store that computes the
// vectors when read, Update embeds only the documents of loaded resources
// (an import into resources nobody searches hashes nothing), and both the
// loaded resource and one loaded afterwards hold every vector.
func TestIndexerDerivedEmbedsLoadedOnly(t *testing.T) {
	ctx := context.Background()
	docs := corpus(12, 3)
	for i := range docs {
		docs[i].ResourceID = []string{"r1", "r2"}[i%2]
	}
	emb := &countingEmbedder{}
	x, st := newIndexer(t, emb, docs)
	x.Store = derivedStore{st}
	if _, _, err := x.Index.VectorCount(ctx, "r2"); err != nil { // r2 loaded, r1 not
		t.Fatal(err)
	}
	out, err := x.Update(ctx, docs, true)
	if err != nil || out.Lexical != nil || out.EmbedErr != nil || out.Embedded != len(docs) {
		t.Fatalf("Update: %+v, %v", out, err)
	}
	if emb.texts != len(docs)/2 || len(st.vecs) != len(docs) {
		t.Fatalf("embedder saw %d texts, %d stored; want %d (r2's only), %d", emb.texts, len(st.vecs), len(docs)/2, len(docs))
	}
	for _, res := range []string{"r2", "r1"} {
		if n, _, err := x.Index.VectorCount(ctx, res); err != nil || n != len(docs)/2 {
			t.Fatalf("%s holds %d vectors (%v), want %d", res, n, err, len(docs)/2)
		}
	}
}
