package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// TestEvalHybridNotBelowChannels runs `mnemo eval --mode all` with the
// offline hash-384 embedder on both dev sets and asserts that the hybrid
// ranks at least as well as each channel alone: recall_any at every k,
// turn and session level; recall_all and NDCG within one question. A fusion change that makes the
// hybrid worse than one of its channels cannot land silently. (hash-384
// keeps it fast: the two sets ingest in about 20 s; use-lite has its own
// test, TestEvalHybridNotBelowChannelsUseLite.)
func TestEvalHybridNotBelowChannels(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests both dev sets (about 30 s); skipped with -short")
	}
	for _, rel := range []string{"locomo/locomo10-dev.json", "longmemeval/longmemeval_s_dev34.json"} {
		t.Run(rel, func(t *testing.T) {
			checkHybridNotBelow(t, nil, "eval", "--embedder", "hash-384", "--json", sharedData(t, rel))
		})
	}
}

// TestEvalHybridNotBelowChannelsUseLite is TestEvalHybridNotBelowChannels
// with use-lite, the default embedder once installed (CI installs it), so
// that a fusion change that helps hash-384 but puts the semantic hybrid
// below one of its channels cannot land silently either. Without
// $MNEMO_EVAL_USELITE_DIR it runs on the LoCoMo dev set in a scratch
// directory: its 2,760 turns embed in about 25 s on 2 cores and the three
// modes ask the 760 questions in about 15 s. The LongMemEval_S dev ingest
// embeds about 16,000 long turns with the transformer (about 20 minutes on
// 2 cores), so it runs only when $MNEMO_EVAL_USELITE_DIR names a directory
// to keep the two ingests in (locomo/ and longmemeval/ under it; a second
// run only asks the questions, in about 15 s). use-lite is read from the
// models directory ($MNEMO_MODELS, else the user cache); the test skips
// when it is absent, and with -short.
func TestEvalHybridNotBelowChannelsUseLite(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds the LoCoMo dev set with use-lite (about 40 s); skipped with -short")
	}
	modelsDir, err := models.Dir(os.Getenv)
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(filepath.Join(models.Path(modelsDir, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite not installed in %s (mnemo models fetch use-lite): %v", modelsDir, err)
	}
	env := map[string]string{models.EnvDir: modelsDir}
	keep := os.Getenv("MNEMO_EVAL_USELITE_DIR")
	for _, rel := range []string{"locomo/locomo10-dev.json", "longmemeval/longmemeval_s_dev34.json"} {
		t.Run(rel, func(t *testing.T) {
			path := sharedData(t, rel)
			var dir string
			switch {
			case keep != "":
				dir = filepath.Join(keep, filepath.Dir(rel))
			case strings.HasPrefix(rel, "locomo/"):
				dir = t.TempDir()
			default:
				t.Skip("set MNEMO_EVAL_USELITE_DIR to a directory that keeps the use-lite ingests of the dev sets (LongMemEval's first takes about 20 minutes)")
			}
			checkHybridNotBelow(t, env, "eval", "--embedder", uselite.ID, "--dir", dir, "--json", path)
		})
	}
}

// checkHybridNotBelow runs `mnemo eval --mode all … --json` (args) and
// asserts that the hybrid is not below either channel.
func checkHybridNotBelow(t *testing.T, env map[string]string, args ...string) {
	t.Helper()
	code, out, errOut := run(t, env, args...)
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	var reports []struct {
		Mode    string                                `json:"mode"`
		Turn    map[string]map[string]evalset.Metrics `json:"turn"`
		Session map[string]map[string]evalset.Metrics `json:"session"`
		Counts  map[string]int                        `json:"counts"`
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("eval --json: %v", err)
	}
	if len(reports) != 3 {
		t.Fatalf("%d reports, want lexical, vector and hybrid", len(reports))
	}
	by := map[string]int{}
	for i, r := range reports {
		by[r.Mode] = i
	}
	h := reports[by["hybrid"]]
	// recall_any is the target metric: strictly at least
	// each channel's. recall_all and NDCG may trail by at most one
	// question's worth (1/n, with a rounding margin: 482/760 is not
	// below 483/760 − 1/760 although float64 says so): fusion trades
	// single questions both ways (on LoCoMo @10 with hash-384 it trails
	// lexical recall_all by one question, 482 vs 483), and a real
	// regression (RRF: 3 to 13 points) is far larger.
	slack := 1/float64(h.Counts["overall"]) + 1e-9
	for _, ch := range []string{"lexical", "vector"} {
		c := reports[by[ch]]
		for level, pair := range map[string][2]map[string]map[string]evalset.Metrics{"turn": {h.Turn, c.Turn}, "session": {h.Session, c.Session}} {
			for k, hm := range pair[0]["overall"] {
				cm := pair[1]["overall"][k]
				if hm.RecallAny < cm.RecallAny-1e-9 {
					t.Errorf("%s recall_any%s: hybrid %.3f < %s %.3f", level, k, hm.RecallAny, ch, cm.RecallAny)
				}
				for name, v := range map[string][2]float64{"recall_all": {hm.RecallAll, cm.RecallAll}, "ndcg": {hm.NDCG, cm.NDCG}} {
					if v[0] < v[1]-slack {
						t.Errorf("%s %s%s: hybrid %.3f < %s %.3f by more than one question", level, name, k, v[0], ch, v[1])
					} else if v[0] < v[1]-1e-9 {
						t.Logf("%s %s%s: hybrid %.3f < %s %.3f (within one question)", level, name, k, v[0], ch, v[1])
					}
				}
			}
		}
	}
}
