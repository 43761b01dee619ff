package pgrecall_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// locomoPath is the LoCoMo dev set ($MNEMO_SHARED_DATA, else the shared
// directory beside the repository), or skips t.
func locomoPath(t *testing.T) string {
	dir := os.Getenv("MNEMO_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	p := filepath.Join(dir, "locomo", "locomo10-dev.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("LoCoMo dev set not found (%v): set MNEMO_SHARED_DATA", err)
	}
	return p
}

// recorder is an importer.Appender that keeps what the importer appends.
type recorder struct{ reqs []engine.AppendRequest }

func (r *recorder) Append(_ context.Context, req engine.AppendRequest) (*engine.AppendResult, error) {
	r.reqs = append(r.reqs, req)
	return &engine.AppendResult{}, nil
}

// question is a scored LoCoMo question (categories 1–4).
type question struct {
	resource, text string
	evidence       []string // message ids
}

// loadLoCoMo imports the dev set the way `mnemo ingest` does (the
// importer's mapping) into a corpus embedded with emb, and reads its
// questions as `mnemo eval` scores them.
func loadLoCoMo(t *testing.T, emb recall.Embedder) (*corpus, []question) {
	path := locomoPath(t)
	rec := &recorder{}
	if _, err := importer.Import(t.Context(), rec, path, importer.Options{Format: importer.FormatLoCoMo}); err != nil {
		t.Fatal(err)
	}
	c := &corpus{emb: emb, threads: map[string][]string{}}
	for _, req := range rec.reqs {
		if !slices.Contains(c.resources, req.ResourceID) {
			c.resources = append(c.resources, req.ResourceID)
		}
		c.threads[req.ResourceID] = append(c.threads[req.ResourceID], req.ThreadID)
		for i, m := range req.Messages {
			md, _ := json.Marshal(m.Metadata)
			var decoded map[string]any
			_ = json.Unmarshal(md, &decoded)
			c.msgs = append(c.msgs, message{content: m.Content, metadata: string(md), doc: recall.Doc{ID: m.ID, ThreadID: req.ThreadID, ResourceID: req.ResourceID,
				Seq: int64(i + 1), Role: string(m.Role), Name: m.Name, Content: m.Content, Metadata: decoded, CreatedAt: m.CreatedAt.UTC().Truncate(1e6)}})
		}
	}
	texts := make([]string, len(c.msgs))
	for i := range c.msgs {
		texts[i] = c.msgs[i].doc.Text()
	}
	for i := 0; i < len(texts); i += 256 {
		vs, err := emb.Embed(t.Context(), texts[i:min(i+256, len(texts))])
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range vs {
			c.msgs[i+j].vec = v
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var samples []importer.LoCoMoSample
	if err := json.Unmarshal(b, &samples); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range c.msgs {
		ids[m.doc.ID] = true
	}
	dia := regexp.MustCompile(`D\d+:\d+`)
	var qs []question
	for _, s := range samples {
		for _, qa := range s.QA {
			q := question{resource: s.SampleID, text: qa.Question}
			for _, ev := range qa.Evidence {
				for _, d := range dia.FindAllString(ev, -1) {
					if id := importer.LoCoMoMessageID(s.SampleID, d); ids[id] && !slices.Contains(q.evidence, id) {
						q.evidence = append(q.evidence, id)
					}
				}
			}
			if qa.Category >= 1 && qa.Category <= 4 && len(q.evidence) > 0 {
				qs = append(qs, q)
			}
		}
	}
	return c, qs
}

// searcher is either backend's search.
type searcher interface {
	Search(ctx context.Context, q recall.Query) (*recall.Result, error)
}

// recallAt returns recall_any@5 and @10 (turn level) of s over qs in
// hybrid mode, and each question's top 10.
func recallAt(t *testing.T, s searcher, qs []question) (at5, at10 float64, tops [][]string) {
	for _, q := range qs {
		res, err := s.Search(t.Context(), recall.Query{Text: q.text, ResourceID: q.resource, Options: recall.Options{TopK: 10}})
		if err != nil {
			t.Fatal(err)
		}
		recall.SortByRank(res.Hits)
		var top []string
		for _, h := range res.Hits {
			if h.Reason == recall.ReasonHit {
				top = append(top, h.MessageID)
			}
		}
		tops = append(tops, top)
		hit := func(k int) float64 {
			for _, id := range top[:min(k, len(top))] {
				if slices.Contains(q.evidence, id) {
					return 1
				}
			}
			return 0
		}
		at5 += hit(5)
		at10 += hit(10)
	}
	n := float64(len(qs))
	return at5 / n, at10 / n, tops
}

// TestLoCoMoRecall measures recall_any@5/@10 on the LoCoMo dev set
// through the SQLite backend's recall.Index and through the Postgres
// searcher on the same corpus and embedder, with the HNSW index and with
// an exact scan: the exact scan equals SQLite's figures (and top 10s);
// HNSW may differ only slightly. Both Postgres passes take every third
// question (254 of 760; all of them with MNEMO_PGRECALL_ALL set): the
// whole set cost 95 of the test's 111 s in CI (load ~12, 2026-12-04),
// 45-80 ms a question.
func TestLoCoMoRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("LoCoMo measurement: not in -short")
	}
	embs := []recall.Embedder{recall.HashEmbedder{}}
	if os.Getenv("MNEMO_PGRECALL_USELITE") != "" {
		e, err := uselite.OpenDefault(nil)
		if err != nil {
			t.Fatal(err)
		}
		if e.ID() == recall.HashID {
			t.Fatal("use-lite is not installed")
		}
		embs = append(embs, e)
	}
	for _, emb := range embs {
		c, qs := loadLoCoMo(t, emb)
		if os.Getenv("MNEMO_PGRECALL_ALL") == "" {
			qs = everyThird(qs)
		}
		pool := postgres(t, c, false)
		sq5, sq10, sqTop := recallAt(t, sqliteIndex(t, c, recall.Tuning{}), qs)
		pg := newSearcherWith(t, pool, emb, recall.Tuning{})
		h5, h10, hTop := recallAt(t, pg, qs)
		e, err := pgstore.EnsureEmbedder(t.Context(), pool, emb.ID(), emb.Dims())
		if err != nil {
			t.Fatal(err)
		}
		dropHNSW(t, pool, e)
		x5, x10, xTop := recallAt(t, pg, qs)
		same := func(tops [][]string) int {
			n := 0
			for i := range tops {
				if slices.Equal(tops[i], sqTop[i]) {
					n++
				}
			}
			return n
		}
		t.Logf("%s, %d messages, %d questions: recall_any@5/@10 SQLite %.3f/%.3f, Postgres exact %.3f/%.3f (same top 10: %d), Postgres HNSW %.3f/%.3f (same top 10: %d)",
			emb.ID(), len(c.msgs), len(qs), sq5, sq10, x5, x10, same(xTop), h5, h10, same(hTop))
		if x5 != sq5 || x10 != sq10 || same(xTop) != len(qs) {
			t.Errorf("%s: Postgres exact differs from SQLite", emb.ID())
		}
		if d := max(abs(h5-sq5), abs(h10-sq10)); d > 0.01 {
			t.Errorf("%s: Postgres HNSW differs from SQLite by %.3f", emb.ID(), d)
		}
	}
}

// everyThird returns qs[0], qs[3], qs[6], ...: questions of every
// conversation, in order.
func everyThird(qs []question) []question {
	var out []question
	for i := 0; i < len(qs); i += 3 {
		out = append(out, qs[i])
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
