package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// damageEmbeddings overwrites the stored hash-384 embeddings of ids with
// vectors of the wrong length: half with a blob too short for its dims,
// half with a consistent blob of the wrong dimension.
func damageEmbeddings(t *testing.T, dir string, ids ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, id := range ids {
		dims, blob := 384, []byte{1, 2, 3, 4} // blob too short for its dims
		if i%2 == 1 {
			dims, blob = 2, msgstore.EncodeVector([]float32{0.6, 0.8}) // consistent, wrong dimension
		}
		res, err := db.ExecContext(ctx, `UPDATE embeddings SET dims = ?, vector = ? WHERE message_id = ? AND embedder = ?`, dims, blob, id, recall.HashID)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("no embedding row for %s", id)
		}
	}
}

func damagedFixture(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	return damagedFixtureEvents(t, nil)
}

// damagedFixtureEvents is damagedFixture with the engine's events sent to
// events.
func damagedFixtureEvents(t *testing.T, events chan engine.Event) (*engine.Engine, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	var msgs []engine.Message
	for i := 1; i <= 20; i++ {
		msgs = append(msgs, user(fmt.Sprintf("m%02d", i), fmt.Sprintf("note %d about the garden and tomatoes number %d", i, i)))
	}
	msgs[11].Content = "the refund for order 77 was approved on friday"
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	return e, dir
}

// TestDamagedEmbeddings: five stored embeddings of the wrong length used to
// make every search and LoadContext of the resource fail (the resource
// could not load), lexical-only searches included, while Check passed.
// Now the bad rows are skipped and re-embedded through the outbox, the
// vector channel says it is degraded, the lexical channel does not, and
// Check reports the damage until it is repaired.
//
// SQLite only: it writes embeddings of the wrong length, which Postgres's vector(N) column refuses.
func TestDamagedEmbeddings(t *testing.T) {
	ctx := context.Background()
	damaged := []string{"m01", "m03", "m05", "m07", "m12"}
	t.Run("WhileOpen", func(t *testing.T) {
		e, dir := damagedFixture(t)
		damageEmbeddings(t, dir, damaged...)

		err := e.Check(ctx)
		var ce *engine.CheckError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("Check with damaged embeddings: %v, want a CheckError naming them", err)
		}
		// The first use of the resource loads it: the status is computed
		// before the re-embedding (queued by that load) can run.
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", ResourceID: "r", RecentN: 1, Query: "refund approved", Recall: &recall.Options{TopK: 2}})
		if err != nil {
			t.Fatalf("LoadContext: %v", err)
		}
		rt := c.MemCtx.Retrieval
		if rt.Lexical != "ok" {
			t.Errorf("retrieval.lexical=%q while only embeddings are owed, want ok", rt.Lexical)
		}
		if !strings.HasPrefix(rt.Vector, "degraded") || !strings.Contains(rt.Vector, "damaged") {
			t.Errorf("retrieval.vector=%q, want degraded naming the damaged embeddings", rt.Vector)
		}
		found := false
		for _, r := range c.MemCtx.Recalled {
			found = found || r.MessageID == "m12"
		}
		if !found {
			t.Errorf("recalled %+v, want m12 (whose embedding is damaged) among them", c.MemCtx.Recalled)
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != "m12" {
			t.Fatalf("lexical search: %v %+v", err, res)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e)
		res, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1}})
		if err != nil || res.Retrieval.Vector != "ok" || res.Retrieval.Lexical != "ok" {
			t.Fatalf("after re-embedding: %v %+v", err, res)
		}
	})
	t.Run("BeforeOpen", func(t *testing.T) {
		e, dir := damagedFixture(t)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		damageEmbeddings(t, dir, damaged...)
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1}}); err != nil {
			t.Fatalf("search: %v", err)
		}
		mustCheck(t, e)
	})
}

// TestDamagedEmbeddingsAtOpen: Open reads the stored vectors only when
// the schema's triggers saw a damaged row written (or the first row's
// dims are not the embedder's), no longer at every open; a row damaged
// after the last open's scan, or stored by an embedder of the same id and
// other dimensions, is still deleted and embedded again by the next Open,
// before any search loads the resource (Check, which reads every row,
// passes after the drain). SQLite only: Postgres's vector column refuses
// such rows (TestPostgresDamageImpossible).
func TestDamagedEmbeddingsAtOpen(t *testing.T) {
	ctx := context.Background()
	reopen := func(t *testing.T, dir string, emb recall.Embedder) *engine.Engine {
		t.Helper()
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	t.Run("AfterLastScan", func(t *testing.T) {
		e, dir := damagedFixture(t)
		damageEmbeddings(t, dir, "m02")
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e = reopen(t, dir, recall.HashEmbedder{}) // scans, deletes m02's, clears the mark
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		damageEmbeddings(t, dir, "m01", "m03", "m05", "m07", "m12")
		e = reopen(t, dir, recall.HashEmbedder{})
		mustCheck(t, e) // drains first: the re-embedding Open queued
	})
	t.Run("DimsChanged", func(t *testing.T) {
		dir := t.TempDir()
		e := reopen(t, dir, cutEmbedder{dims: 8})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("m1", "the refund was approved"), user("m2", "the train leaves at nine")}}); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e = reopen(t, dir, cutEmbedder{dims: 4})
		mustCheck(t, e)
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1}})
		if err != nil || res.Retrieval.Vector != "ok" {
			t.Fatalf("search after the dimensions changed: %v %+v", err, res)
		}
	})
}

// cutEmbedder is hash-384 cut to its first dims values (renormalised),
// under one id whatever dims: an embedder whose dimensions changed while
// its id did not.
type cutEmbedder struct{ dims int }

func (cutEmbedder) ID() string  { return "cut" }
func (c cutEmbedder) Dims() int { return c.dims }
func (c cutEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := recall.HashEmbedder{}.Embed(ctx, texts)
	for i, v := range vs {
		v = v[:c.dims]
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		for j := range v {
			if sum > 0 {
				v[j] = float32(float64(v[j]) / math.Sqrt(sum))
			} else {
				v[j] = float32(1 / math.Sqrt(float64(c.dims)))
			}
		}
		vs[i] = v
	}
	return vs, err
}

// TestOwedEmbeddingsLexicalOK: while the embedder is down, messages are
// indexed lexically and only their embeddings are owed; the lexical
// channel must read "ok", not "degraded: index catching up".
func TestOwedEmbeddingsLexicalOK(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e, err := engine.Open(ctx, be.Config(t, engine.Config{Embedder: failingEmbedder{}}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the refund was approved")}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund", Options: recall.Options{TopK: 1}})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("search: %v %+v", err, res)
		}
		if res.Retrieval.Lexical != "ok" {
			t.Errorf("retrieval.lexical=%q with only embeddings owed, want ok", res.Retrieval.Lexical)
		}
		if !strings.HasPrefix(res.Retrieval.Vector, "degraded") && !strings.HasPrefix(res.Retrieval.Vector, "unavailable") {
			t.Errorf("retrieval.vector=%q, want degraded or unavailable", res.Retrieval.Vector)
		}
	})
}

// failingEmbedder is an embedder whose endpoint is down.
type failingEmbedder struct{}

func (failingEmbedder) ID() string { return "down-8" }
func (failingEmbedder) Dims() int  { return 8 }
func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("connection refused")
}

// damageNonFinite overwrites m12's stored hash-384 embedding with one of
// the right length holding a NaN and a +Inf value.
func damageNonFinite(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	v := make([]float32, recall.HashDims)
	for i := range v {
		v[i] = 0.05
	}
	v[0], v[1] = float32(math.NaN()), float32(math.Inf(1))
	db, err := store.Open(ctx, filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE embeddings SET vector = ? WHERE message_id = 'm12' AND embedder = ?`, msgstore.EncodeVector(v), recall.HashID)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatal("no embedding row for m12")
	}
}

// TestNonFiniteEmbedding: a stored embedding of the right length whose
// bytes were damaged into NaN and +Inf values used to load, score NaN for
// every query and so leave its message out of the vector channel without a
// word, while Check passed (found by review9). Now the load skips it as
// damaged, the vector status says so, Check reports it, and either way the
// message is embedded again. SQLite only: pgvector refuses NaN and Inf.
func TestNonFiniteEmbedding(t *testing.T) {
	ctx := context.Background()
	vector := recall.Options{TopK: 1, Mode: recall.ModeVector}
	found := func(t *testing.T, e *engine.Engine) {
		t.Helper()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: vector})
		if err != nil || len(got.Hits) != 1 || got.Hits[0].MessageID != "m12" || got.Retrieval.Vector != "ok" {
			t.Fatalf("vector search after the re-embedding: %v %+v, want m12 first and vector ok", err, got)
		}
		mustCheck(t, e)
	}
	t.Run("Load", func(t *testing.T) {
		e, dir := damagedFixture(t)
		damageNonFinite(t, dir)
		got, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: vector})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.Retrieval.Vector, "damaged") {
			t.Errorf("first search: retrieval.vector=%q, want it to name the damaged embedding", got.Retrieval.Vector)
		}
		found(t, e)
	})
	t.Run("Check", func(t *testing.T) {
		e, dir := damagedFixture(t)
		damageNonFinite(t, dir)
		err := e.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), "NaN") || !strings.Contains(err.Error(), "m12") {
			t.Fatalf("Check with a NaN embedding: %v, want a problem naming it", err)
		}
		found(t, e)
	})
}

// TestDamagedEmbeddingEventSingular: the rebuild event of a search that
// found damaged stored embeddings counts them in the singular when there
// is one ("1 stored hash-384 embedding was damaged"; it said "1 stored
// hash-384 embeddings were damaged") and in the plural otherwise.
func TestDamagedEmbeddingEventSingular(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"One", damageNonFinite, "1 stored hash-384 embedding was damaged (wrong length or not finite); re-embedding"},
		{"Two", func(t *testing.T, dir string) { damageEmbeddings(t, dir, "m01", "m03") }, "2 stored hash-384 embeddings were damaged (wrong length or not finite); re-embedding"},
	} {
		t.Run(c.name, func(t *testing.T) {
			events := make(chan engine.Event, 64)
			e, dir := damagedFixtureEvents(t, events)
			drainEvents(events)
			c.damage(t, dir)
			if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1}}); err != nil {
				t.Fatal(err)
			}
			var details []string
			for _, ev := range drainEvents(events) {
				if ev.Reason == engine.EventRebuild {
					details = append(details, ev.Detail)
				}
			}
			if len(details) != 1 || details[0] != c.want {
				t.Errorf("rebuild events %q, want one %q", details, c.want)
			}
		})
	}
}
