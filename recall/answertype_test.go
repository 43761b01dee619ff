package recall_test

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestAnswerTypes: of two turns that share a question's words equally,
// the one holding an expression of the type the question asks for ("How
// long" → a duration, "When" → a time, "How many" → a number) ranks first; with NoAnswerTypes,
// the shorter turn does.
func TestAnswerTypes(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id, thread string, seq int64, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: thread, ResourceID: "r", Seq: seq, Role: "user", Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("a1", "a", 1, "I loved my trip to Japan, the food was great."),
		doc("b1", "b", 1, "I loved my trip to Japan, it lasted two weeks."),
		doc("c1", "c", 1, "I went to the pottery class, the teacher was great."),
		doc("d1", "d", 1, "I went to the pottery class last Friday."),
		doc("e1", "e", 1, "I lead the platform team at work, a great group."),
		doc("f1", "f", 1, "I lead the platform team at work, a group of 5."),
		doc("g1", "g", 1, "Tomatoes need sun and water."),
	}
	for _, tc := range []struct {
		q, typed, plain string
	}{
		{"How long was my trip to Japan?", "b1", "a1"},
		{"When did I go to the pottery class?", "d1", "c1"},
		{"How many people are in the platform team I lead?", "f1", "e1"},
	} {
		for _, off := range []bool{false, true} {
			f := newFixtureWith(t, docs, recall.Tuning{ContextWeight: -1, NoAnswerTypes: off})
			want := tc.typed
			if off {
				want = tc.plain
			}
			if got := rankIDs(t, f.ix, tc.q, recall.ModeLexical, 5); len(got) < 2 || got[0] != want {
				t.Errorf("%q (NoAnswerTypes %v): %v, want %s first", tc.q, off, got, want)
			}
		}
	}
}
