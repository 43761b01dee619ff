package recall_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSpeakerRule: a question naming a participant ranks that
// participant's own answer above the other participant's turn that
// addresses them with more of the question's words; without the rule
// (SpeakerWeight < 0) the addressing turn ranks first. A name the
// candidates' speakers do not carry changes nothing, and neither does a
// question naming both speakers.
func TestSpeakerRule(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id string, seq int64, name, content string) recall.Doc {
		role := "user"
		if name == "Maria" {
			role = "assistant"
		}
		return recall.Doc{ID: id, ThreadID: "s1", ResourceID: "r", Seq: seq, Role: role, Name: name, Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("m1", 1, "Maria", "Wow John, congrats on the promotion at work! What is the new job?"),
		doc("j1", 2, "John", "Thanks! I am an assistant manager now, after the promotion."),
		doc("m2", 3, "Maria", "The weather is grey and cold today."),
		doc("j2", 4, "John", "My brother plays the violin every evening."),
		doc("m3", 5, "Maria", "Tomatoes need sun and water."),
		doc("j3", 6, "John", "The car workshop is closed on Mondays."),
	}
	before := func(ids []string, x, y string) bool {
		ix, iy := slices.Index(ids, x), slices.Index(ids, y)
		return ix >= 0 && iy >= 0 && ix < iy
	}
	base := recall.Tuning{ContextWeight: -1}
	off := base
	off.SpeakerWeight = -1
	offF, onF := newFixtureWith(t, docs, off), newFixtureWith(t, docs, base)
	for _, tc := range []struct {
		q           string
		first, then string // with the rule
	}{
		{"What promotion at work did John get congrats on?", "j1", "m1"},
		{"What promotion at work did Johnny get congrats on?", "m1", "j1"},    // not a speaker's name
		{"What promotion at work did John tell Maria about?", "m1", "j1"},     // both speakers
		{"What promotion at work did JOHN get congrats on?", "j1", "m1"},      // folded
		{"What promotion at work did John-Paul get congrats on?", "j1", "m1"}, // a word of the query
	} {
		if got := rankIDs(t, offF.ix, tc.q, recall.ModeHybrid, 6); !before(got, "m1", "j1") {
			t.Fatalf("%q without the rule: %v, want m1 before j1 (the fixture's premise)", tc.q, got)
		}
		if got := rankIDs(t, onF.ix, tc.q, recall.ModeHybrid, 6); !before(got, tc.first, tc.then) {
			t.Errorf("%q with the rule: %v, want %s before %s", tc.q, got, tc.first, tc.then)
		}
	}
	// Single-channel modes keep their channel's own order.
	if got := rankIDs(t, onF.ix, "What promotion at work did John get congrats on?", recall.ModeLexical, 6); !before(got, "m1", "j1") {
		t.Errorf("lexical mode: %v, want m1 before j1 (the rule is part of the hybrid fusion)", got)
	}
}

// TestSpeakerRuleAssistant: a question about what the assistant said
// ("the list you provided") raises the assistant's turns, so its answer
// ranks above the user's request that shares more of the question's
// words; a request to the assistant ("Can you suggest …") names no one.
func TestSpeakerRuleAssistant(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id string, seq int64, role, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: "s1", ResourceID: "r", Seq: seq, Role: role, Content: content, CreatedAt: at}
	}
	docs := []recall.Doc{
		doc("u1", 1, "user", "Give me a list of work from home jobs for seniors, a list of jobs please."),
		doc("a1", 2, "assistant", "1. Virtual tutor 2. Remote bookkeeper 3. Transcriptionist: home jobs."),
		doc("u2", 3, "user", "Tomatoes need sun and water."),
		doc("a2", 4, "assistant", "Basil likes the same sun."),
		doc("u3", 5, "user", "My brother plays the violin every evening."),
		doc("a3", 6, "assistant", "The car workshop is closed on Mondays."),
	}
	before := func(ids []string, x, y string) bool {
		ix, iy := slices.Index(ids, x), slices.Index(ids, y)
		return ix >= 0 && iy >= 0 && ix < iy
	}
	off := recall.Tuning{ContextWeight: -1, SpeakerWeight: -1, NoExchangeOrder: true}
	offF, onF := newFixtureWith(t, docs, off), newFixtureWith(t, docs, recall.Tuning{ContextWeight: -1})
	for _, tc := range []struct {
		q           string
		first, then string // with the rule
	}{
		{"What was the third home job in the list of jobs for seniors you provided?", "a1", "u1"},
		{"Remind me of the list of home jobs for seniors you've already given and you suggested", "a1", "u1"},
		{"Can you suggest a list of home jobs for seniors?", "u1", "a1"},
	} {
		if got := rankIDs(t, offF.ix, tc.q, recall.ModeHybrid, 6); !before(got, "u1", "a1") {
			t.Fatalf("%q without the rule: %v, want u1 before a1 (the fixture's premise)", tc.q, got)
		}
		if got := rankIDs(t, onF.ix, tc.q, recall.ModeHybrid, 6); !before(got, tc.first, tc.then) {
			t.Errorf("%q with the rule: %v, want %s before %s", tc.q, got, tc.first, tc.then)
		}
	}
}
