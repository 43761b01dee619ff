package evalset_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/importer"
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

// TestQuestionDate: a LongMemEval question carries its question_date as
// the time it is asked (UTC, the haystack dates' layout); a malformed one
// fails the load naming the question; LoCoMo questions carry none.
func TestQuestionDate(t *testing.T) {
	write := func(date string) string {
		p := filepath.Join(t.TempDir(), "lme.json")
		js := `[{"question_id":"q1","question_type":"temporal-reasoning","question":"I mentioned a museum two months ago. With whom?",` +
			`"question_date":"` + date + `","haystack_session_ids":["s1"],"haystack_dates":["2023/01/11 (Wed) 10:00"],` +
			`"haystack_sessions":[[{"role":"user","content":"I visited the museum","has_answer":true}]],"answer_session_ids":["s1"],"answer":"a friend"}]`
		if err := os.WriteFile(p, []byte(js), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	set, err := evalset.Load(write("2023/03/11 (Sat) 23:40"), importer.FormatLongMemEval)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2023, 3, 11, 23, 40, 0, 0, time.UTC); len(set.Questions) != 1 || !set.Questions[0].At.Equal(want) {
		t.Fatalf("questions %+v, want one asked at %v", set.Questions, want)
	}
	if _, err := evalset.Load(write("11 March 2023"), importer.FormatLongMemEval); err == nil || !strings.Contains(err.Error(), "q1") || !strings.Contains(err.Error(), "question_date") {
		t.Fatalf("malformed question_date: %v", err)
	}
	const locomo = "/work/shared/data/locomo/locomo10-dev.json"
	if _, err := os.Stat(locomo); err != nil {
		t.Skipf("dev set absent: %v", err)
	}
	set, err = evalset.Load(locomo, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range set.Questions {
		if !q.At.IsZero() {
			t.Fatalf("LoCoMo question %s asked at %v: the set gives no time", q.ID, q.At)
		}
	}
}
