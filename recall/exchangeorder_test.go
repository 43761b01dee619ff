package recall_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestExchangeOrderRule: of a user's request and the agent's reply after
// it, the reply matching the question with more of its words, the request
// ranks first (it holds the user's own facts); a question asking what the
// agent provided ranks the reply first even where the request matches
// better; a question naming the conversation ("our previous chat") keeps
// the fused order, and so does a named assistant (a person), the rule
// off (NoExchangeOrder) and the lexical mode.
func TestExchangeOrderRule(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := func(name string) []recall.Doc {
		doc := func(id string, seq int64, role, content string) recall.Doc {
			d := recall.Doc{ID: id, ThreadID: "s1", ResourceID: "r", Seq: seq, Role: role, Content: content, CreatedAt: at}
			if role == "assistant" {
				d.Name = name
			}
			return d
		}
		return []recall.Doc{
			doc("u1", 1, "user", "How do I reach the fish market from my hotel with the Suica card I just got?"),
			doc("a1", 2, "assistant", "Getting around Tokyo is easy: tips for the train around Tokyo, the fish market and your hotel."),
			doc("u2", 3, "user", "Brainstorm a list of work from home jobs for seniors, home jobs for seniors please."),
			doc("a2", 4, "assistant", "1. Virtual tutor 2. Remote bookkeeper 3. Transcriptionist."),
			doc("u3", 5, "user", "Tomatoes need sun and water."),
			doc("a3", 6, "assistant", "The car workshop is closed on Mondays."),
		}
	}
	before := func(ids []string, x, y string) bool {
		ix, iy := slices.Index(ids, x), slices.Index(ids, y)
		return ix >= 0 && iy >= 0 && ix < iy
	}
	base := recall.Tuning{ContextWeight: -1, SpeakerWeight: -1}
	off := base
	off.NoExchangeOrder = true
	offF, onF, namedF := newFixtureWith(t, docs(""), off), newFixtureWith(t, docs(""), base), newFixtureWith(t, docs("Maria"), base)
	for _, tc := range []struct {
		q           string
		premise     [2]string // the fused order (rule off), kept for a named assistant
		first, then string    // with the rule
	}{
		{"Any tips for getting around Tokyo by train?", [2]string{"a1", "u1"}, "u1", "a1"},
		{"What was the third of the home jobs for seniors you provided?", [2]string{"u2", "a2"}, "a2", "u2"},
		{"In our previous chat, any tips for getting around Tokyo by train?", [2]string{"a1", "u1"}, "a1", "u1"},
		{"From the conversation we had, any tips for getting around Tokyo by train?", [2]string{"a1", "u1"}, "a1", "u1"},
		{"We discussed tips for getting around Tokyo by train, remind me?", [2]string{"a1", "u1"}, "a1", "u1"},
	} {
		if got := rankIDs(t, offF.ix, tc.q, recall.ModeHybrid, 6); !before(got, tc.premise[0], tc.premise[1]) {
			t.Fatalf("%q without the rule: %v, want %s before %s (the fixture's premise)", tc.q, got, tc.premise[0], tc.premise[1])
		}
		if got := rankIDs(t, onF.ix, tc.q, recall.ModeHybrid, 6); !before(got, tc.first, tc.then) {
			t.Errorf("%q with the rule: %v, want %s before %s", tc.q, got, tc.first, tc.then)
		}
		if got := rankIDs(t, namedF.ix, tc.q, recall.ModeHybrid, 6); !before(got, tc.premise[0], tc.premise[1]) {
			t.Errorf("%q, named assistant: %v, want %s before %s (the fused order)", tc.q, got, tc.premise[0], tc.premise[1])
		}
	}
	// Single-channel modes keep their channel's own order.
	q := "Any tips for getting around Tokyo by train?"
	if got, want := rankIDs(t, onF.ix, q, recall.ModeLexical, 6), rankIDs(t, offF.ix, q, recall.ModeLexical, 6); !slices.Equal(got, want) {
		t.Errorf("lexical mode: %v, want the channel's order %v", got, want)
	}
}
