package recall_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSessionEvidence: of two turns that match a question about as well,
// the one whose thread holds another matching turn ranks first in a hybrid
// search; without
// the rule (SessionWeight < 0) the better match alone does.
func TestSessionEvidence(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id, thread string, seq int64, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: thread, ResourceID: "r", Seq: seq, Role: "user", Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("a1", "a", 1, "I went to a pottery workshop on Sunday."),
		doc("a2", "a", 2, "The weather was grey and cold all day."),
		doc("a3", "a", 3, "We shaped clay bowls from pottery clay."),
		doc("b1", "b", 1, "The pottery workshop was on Sunday too."),
		doc("b2", "b", 2, "Tomatoes need sun and water."),
		doc("b3", "b", 3, "Basil likes the same."),
		doc("c1", "c", 1, "My brother plays the violin at the music workshop."),
		doc("c2", "c", 2, "He practises every evening."),
		doc("d1", "d", 1, "The car workshop is closed on Mondays."),
		doc("e1", "e", 1, "Our team had a writing workshop."),
	}
	q := "pottery workshop clay"
	// hash-384 (the fixture's embedder) has the rule off by default.
	on15 := recall.Tuning{ContextWeight: -1, SessionWeight: 0.15}
	off := newFixtureWith(t, docs, recall.Tuning{ContextWeight: -1, SessionWeight: -1})
	before := func(ids []string, x, y string) bool {
		ix, iy := slices.Index(ids, x), slices.Index(ids, y)
		return ix >= 0 && iy >= 0 && ix < iy
	}
	if got := rankIDs(t, off.ix, q, recall.ModeHybrid, 8); !before(got, "b1", "a1") {
		t.Fatalf("without the rule: %v, want b1 before a1 (the fixture's premise)", got)
	}
	on := newFixtureWith(t, docs, on15)
	if got := rankIDs(t, on.ix, q, recall.ModeHybrid, 8); !before(got, "a1", "b1") {
		t.Errorf("with the rule: %v, want a1 before b1 (a1's thread also talks of pottery clay)", got)
	}
}
