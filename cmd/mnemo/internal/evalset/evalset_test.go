package evalset_test

import (
	"math"
	"os"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
)

func TestScore(t *testing.T) {
	ranked := []string{"a", "b", "a", "c", "d"}
	m := evalset.Score(ranked, []string{"b", "d"}, 2)
	if m.RecallAny != 1 || m.RecallAll != 0 {
		t.Fatalf("@2 %+v", m)
	}
	wantNDCG := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	if math.Abs(m.NDCG-wantNDCG) > 1e-12 {
		t.Fatalf("ndcg@2 %v, want %v", m.NDCG, wantNDCG)
	}
	// "a" repeated counts once: d is at position 4.
	if m := evalset.Score(ranked, []string{"b", "d"}, 4); m.RecallAll != 1 {
		t.Fatalf("@4 %+v", m)
	}
	if m := evalset.Score(ranked, []string{"z"}, 5); m != (evalset.Metrics{}) {
		t.Fatalf("no relevant found: %+v", m)
	}
	if m := evalset.Score(ranked, []string{"a"}, 1); m.NDCG != 1 || m.RecallAll != 1 {
		t.Fatalf("perfect: %+v", m)
	}
}

func TestLoadDevSets(t *testing.T) {
	for _, tc := range []struct {
		path    string
		n       int
		perType bool
	}{
		{"/work/shared/data/locomo/locomo10-dev.json", 760, false},
		{"/work/shared/data/longmemeval/longmemeval_s_dev34.json", 30, true},
	} {
		if _, err := os.Stat(tc.path); err != nil {
			t.Skipf("dev set absent: %v", err)
		}
		set, err := evalset.Load(tc.path, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(set.Questions); got != tc.n {
			t.Fatalf("%s: %d questions, want %d (skipped %d, bad evidence %d)", tc.path, got, tc.n, set.Skipped, set.SkippedEvidence)
		}
		for _, q := range set.Questions {
			if len(q.Turns) == 0 && len(q.Sessions) == 0 {
				t.Fatalf("%s without evidence", q.ID)
			}
			if tc.perType && len(q.Sessions) == 0 {
				t.Fatalf("%s: no evidence session", q.ID)
			}
		}
	}
}
