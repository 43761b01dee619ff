package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestStaleAnalyzerRebuilds: a lexical index written by an older mnemo
// (the plain "en" analyzer, no folding) holds every message, so it is not
// "behind"; Open must still notice that its terms are not the current
// analyzer's, rebuild it from the store and say so with an event. Before
// the analyzer was versioned, Open kept the old index and "resume" never
// found "résumé".
//
// SQLite only: the bleve index records its analyzer in the data directory; Postgres has no such index.
func TestStaleAnalyzerRebuilds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"my résumé is attached", "tomatoes need sun", "the train leaves at nine"}
	for i, text := range texts {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m"+string(rune('1'+i)), text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	writeOldIndex(t, filepath.Join(dir, engine.LexicalDir), texts)

	events := make(chan engine.Event, 16)
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Events: events})
	if err != nil {
		t.Fatalf("open over an old index: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	mustCheck(t, e)
	var rebuilt bool
	evs := drainEvents(events)
	for _, ev := range evs {
		rebuilt = rebuilt || ev.Reason == engine.EventRebuild && strings.Contains(ev.Detail, "analyzer")
	}
	if !rebuilt {
		t.Errorf("no rebuild event naming the analyzer: %+v", evs)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "resume", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != "m1" {
		t.Fatalf("search after rebuild: %v %+v", err, res)
	}
}

// writeOldIndex replaces path by a bleve index as mnemo built it before
// the analyzer was versioned, holding texts as messages m1, m2, ….
func writeOldIndex(t *testing.T, path string, texts []string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = index.BM25Scoring
	dm := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	dm.AddFieldMappingsAt("text", text)
	dm.AddFieldMappingsAt("resource", bleve.NewKeywordFieldMapping())
	dm.AddFieldMappingsAt("thread", bleve.NewKeywordFieldMapping())
	im.DefaultMapping = dm
	idx, err := bleve.NewUsing(path, im, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		doc := map[string]string{"text": s, "resource": "r", "thread": "t"}
		if err := idx.Index("m"+string(rune('1'+i)), doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
}
