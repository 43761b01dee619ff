package recall_test

import (
	"context"
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

// TestSessionTopic: of two identical turns, the one whose session is about
// the question's subject ranks first once the rule is on (its thread's
// centroid is nearer the query), and the thread's centroid follows the
// writes after the resource loaded: a turn added to the thread brings the
// topic in, its removal takes it out again.
func TestSessionTopic(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id, thread string, seq int64, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: thread, ResourceID: "r", Seq: seq, Role: "user", Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("a1", "a", 1, "I booked the hotel."),
		doc("a2", "a", 2, "Tomatoes need sun and water."),
		doc("b1", "b", 1, "I booked the hotel."),
		doc("b2", "b", 2, "Tomatoes need sun and water."),
		doc("c1", "c", 1, "The hotel bar was loud."),
		doc("d1", "d", 1, "My brother plays the violin."),
	}
	japan := doc("b3", "b", 3, "The Japan trip starts in Kyoto, then Osaka and Nara.")
	q := "Which hotel did I book for the Japan trip to Kyoto?"
	noSession := recall.Tuning{ContextWeight: -1, SessionWeight: -1}
	withTopic := noSession
	withTopic.TopicWeight = 0.15
	for _, tc := range []struct {
		name   string
		tuning recall.Tuning
		first  string // after b3 is added
	}{{"off", noSession, "a1"}, {"on", withTopic, "b1"}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixtureWith(t, docs, tc.tuning)
			first := func() string {
				for _, id := range rankIDs(t, f.ix, q, recall.ModeHybrid, 8) {
					if id == "a1" || id == "b1" {
						return id
					}
				}
				return ""
			}
			if got := first(); got != "a1" {
				t.Fatalf("before b3: %s first, want a1 (identical turns: the id breaks the tie)", got)
			}
			f.add(t, []recall.Doc{japan})
			if got := first(); got != tc.first {
				t.Errorf("with b3 in thread b: %s first, want %s", got, tc.first)
			}
			if err := f.ix.Remove(ctx, []string{"b3"}); err != nil {
				t.Fatal(err)
			}
			if got := first(); got != "a1" {
				t.Errorf("b3 removed: %s first, want a1 (thread b's topic no longer names Japan)", got)
			}
		})
	}
}
