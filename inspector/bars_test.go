package inspector_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRunPageNegativeScores: the run page draws a hit's fused score on
// the run's scale from min(0, lowest) to max(0, highest), with a line at
// 0: a negative score (the weighted fusion standardises, so a hit below
// the candidates' mean is negative) gets a bar that ends at the line, a
// positive one a bar that starts there. The bars were a percentage of
// the highest score, so every negative score had an empty bar, as a
// score of 0 has. A note above the timeline says what the fused score is,
// by the fusion the record names.
func TestRunPageNegativeScores(t *testing.T) {
	e, ts := seed(t, nil)
	ctx := context.Background()
	lc, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-neg", ThreadID: "ana-1", RecentN: 1, Query: "greyhound Pepper socks",
		Recall: &recall.Options{TopK: 4}})
	if err != nil {
		t.Fatal(err)
	}
	var scores []float64
	for _, r := range lc.MemCtx.Recalled {
		if r.Score != nil {
			scores = append(scores, *r.Score)
		}
	}
	if len(scores) < 2 || min(scores[0], scores[len(scores)-1]) >= 0 {
		t.Fatalf("the run has no negative fused score to draw: %v", scores)
	}
	status, body := get(t, ts.URL+"/ui/runs/run-neg", "")
	if status != 200 {
		t.Fatalf("run page: %d", status)
	}
	bar := regexp.MustCompile(`<span>fused</span><div class="bar">(?:<i class="zero" style="left:(\d+)%"></i>)?<span( class="neg")? style="margin-left:(\d+)%;width:(\d+)%"></span></div><span>(-?[0-9.]+)</span>`)
	found := bar.FindAllStringSubmatch(body, -1)
	if len(found) != len(scores) {
		t.Fatalf("%d fused bars for %d scores:\n%s", len(found), len(scores), body)
	}
	for _, m := range found {
		zero, _ := strconv.Atoi(m[1])
		left, _ := strconv.Atoi(m[3])
		width, _ := strconv.Atoi(m[4])
		score, _ := strconv.ParseFloat(m[5], 64)
		switch {
		case m[1] == "":
			t.Errorf("score %s: no zero line, though the run has negative scores", m[5])
		case score < 0 && (m[2] == "" || width < 2 || left+width != zero):
			t.Errorf("negative score %s: bar %q, want a neg bar ending at the zero line (%d%%)", m[5], m[0], zero)
		case score > 0 && (m[2] != "" || width < 2 || left != zero):
			t.Errorf("positive score %s: bar %q, want a bar starting at the zero line (%d%%)", m[5], m[0], zero)
		}
	}
	for _, w := range []string{`id="score-note"`, "weighted, vector weight 0.15", "may be negative", "hybrid rules", "[speaker boost 2 sd · date boost 2 sd · exchange order]", "BM25 of the turn with its exchange context", "line at 0"} {
		if !strings.Contains(body, w) {
			t.Errorf("run page lacks %q", w)
		}
	}
}
