package recall_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestDateFocusRule: a question naming a date ranks a turn said in that
// period (or about it: its relative date points there) above a turn said
// at another time that shares more of the question's words; without the
// rule (DateWeight < 0) or without dates (NoDates) the other turn ranks
// first. A question naming no date changes no order, and the
// single-channel modes keep their channel's own order.
func TestDateFocusRule(t *testing.T) {
	may := time.Date(2023, 5, 8, 14, 0, 0, 0, time.UTC)
	oct := time.Date(2022, 10, 22, 18, 0, 0, 0, time.UTC)
	doc := func(id, thread string, seq int64, at time.Time, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: thread, ResourceID: "r", Seq: seq, Role: "user", Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("oct", "s1", 1, oct, "My recent visits to museums with a friend: the museum of science, the museum of art."),
		doc("o2", "s1", 2, oct, "The weather is grey and cold today."),
		doc("may", "s2", 1, may, "I went to the history museum."),
		doc("m2", "s2", 2, may, "Tomatoes need sun and water."),
		doc("said", "s3", 1, may.AddDate(0, 0, 55), "We saw a lecture at a museum last month, it was long."),
		doc("x1", "s3", 2, may.AddDate(0, 0, 55), "My brother plays the violin every evening."),
	}
	base := recall.Tuning{ContextWeight: -1, SessionWeight: -1, TopicWeight: -1}
	off, noDates := base, base
	off.DateWeight = -1
	noDates.NoDates = true
	fOn, fOff, fNo := newFixtureWith(t, docs, base), newFixtureWith(t, docs, off), newFixtureWith(t, docs, noDates)
	rank := func(f *fixture, q string, at time.Time, mode recall.Mode) []string {
		t.Helper()
		res, err := f.ix.Search(context.Background(), recall.Query{Text: q, ResourceID: "r", At: at, Options: recall.Options{Mode: mode, TopK: 6}})
		if err != nil {
			t.Fatal(err)
		}
		recall.SortByRank(res.Hits)
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.MessageID)
		}
		return ids
	}
	before := func(ids []string, x, y string) bool {
		ix, iy := slices.Index(ids, x), slices.Index(ids, y)
		return ix >= 0 && iy >= 0 && ix < iy
	}
	for _, tc := range []struct {
		q           string
		at          time.Time
		first, then string // with the rule
	}{
		{"Which museum visits with a friend did I make in May 2023?", time.Time{}, "may", "oct"},
		{"Which museum visits with a friend did I make on 8 May, 2023?", time.Time{}, "may", "oct"},
		{"Which museum visits with a friend did I make two months ago?", may.AddDate(0, 2, 0), "may", "oct"}, // the question's relative date
		{"Which museum visits with a friend did I make in June 2023?", time.Time{}, "said", "oct"},           // a turn about the period (said 2 July: "last month")
		{"Which museum visits with a friend did I make?", time.Time{}, "oct", "may"},                         // no date
		{"Which museum visits with a friend did I make in December 2021?", time.Time{}, "oct", "may"},        // no turn in it
	} {
		for _, f := range []*fixture{fOff, fNo} {
			if got := rank(f, tc.q, tc.at, recall.ModeHybrid); !before(got, "oct", tc.then) && tc.then != "oct" {
				t.Fatalf("%q without the rule: %v, want oct before %s (the fixture's premise)", tc.q, got, tc.then)
			}
		}
		if got := rank(fOn, tc.q, tc.at, recall.ModeHybrid); !before(got, tc.first, tc.then) {
			t.Errorf("%q with the rule: %v, want %s before %s", tc.q, got, tc.first, tc.then)
		}
	}
	if got := rank(fOn, "Which museum visits with a friend did I make in May 2023?", time.Time{}, recall.ModeVector); !before(got, "oct", "may") {
		t.Errorf("vector mode: %v, want oct before may (the rule is part of the hybrid fusion)", got)
	}
}
