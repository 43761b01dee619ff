package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mnemo-go/mnemo/engine"
)

// TestBacklogCauseAnalyzer: a lexical index an older mnemo wrote (another
// analyzer) is rebuilt by the Open of the next command, which queues
// every stored message; mnemo check and mnemo ingest, finding that
// backlog, say it is the rebuild their own open began, in the engine's
// words (its EventRebuild), not "a process stopped … or an outage".
func TestBacklogCauseAnalyzer(t *testing.T) {
	var reqs []engine.AppendRequest // 1,200 messages: more than the drainer's batch (512)
	for batch := range 2 {
		var msgs []engine.Message
		for i := range 600 {
			msgs = append(msgs, engine.Message{Role: "user", Content: fmt.Sprintf("turn %d: the refund of order %d was approved", i, batch*600+i)})
		}
		reqs = append(reqs, inThreadT(msgs...))
	}
	for _, args := range [][]string{{"check"}, {"ingest", newMessages(t, "a")}} {
		t.Run(args[0], func(t *testing.T) {
			dir := storedDir(t, engine.Config{}, true, reqs...)
			writeOldAnalyzerIndex(t, filepath.Join(dir, engine.LexicalDir))
			code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
			want := "mnemo " + args[0] + ": indexing 1200 outbox rows first (the rebuild this open began: lexical index built with an older analyzer; rebuilding with "
			if code != 0 || !strings.HasPrefix(stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit 0, stderr from %q", code, stderr, want)
			}
		})
	}
}

// writeOldAnalyzerIndex replaces path by an empty bleve index of the
// plain "en" analyzer, as mnemo built it before the analyzer was
// versioned (recall.ErrStaleIndex at the next open).
func writeOldAnalyzerIndex(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = index.BM25Scoring
	idx, err := bleve.NewUsing(path, im, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
}
