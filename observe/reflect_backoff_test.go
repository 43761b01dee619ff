package observe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/observe"
)

// reflectorCalls counts the reflector's requests the fake server got
// (a reflector's user message starts with <observations>).
func reflectorCalls(f *fakeModel) int {
	n := 0
	for _, req := range f.srv.ChatRequests() {
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "<observations>") {
			n++
		}
	}
	return n
}

func TestReflectorBacksOff(t *testing.T) { forEachBackend(t, testReflectorBacksOff) }

// testReflectorBacksOff is obs62 item 1: a reflector that cannot condense
// (it answers its whole input as one item) left a reflection holding
// ReflectThreshold tokens or more, so each new observation made the
// reflection due again: one reflector call per observation (before: 15
// calls over 24 observations, one at each after the first reflection). Now the reflector runs again only once the
// observations other than reflections hold ReflectThreshold/4 tokens
// (ReflectGrowth), a rule read from the stored rows, so it holds after a
// reopen; each reflection that did not condense below the threshold is
// logged once at WARN.
func testReflectorBacksOff(t *testing.T, b backend) {
	const threshold, rounds = 120, 24
	f := newFakeModel(t, copying(true))
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 10, RecentN: -1, ReflectThreshold: threshold, Logger: textLogger(&logs)}
	place := b.Place(t)
	e := b.openEnv(t, place, src, f.model(t), cfg)
	reflections, first := 0, -1
	for round := range rounds {
		if round == rounds/2 { // a restart: the rule is read from the rows
			e = b.openEnv(t, place, src, f.model(t), cfg)
		}
		src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives of bees near the river.", round, round+3)), assistant(""))
		res, err := e.obs.Observe(ctx, "t", observe.Options{})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.Reflection != nil {
			reflections++
			if first < 0 {
				first = round
			}
		}
	}
	obsTokens := tokens.Text("- Round 10: Ana keeps 13 hives of bees near the river.")
	// Each reflection after the first needs ReflectGrowth tokens of new
	// observations: one call per growth/obsTokens rounds.
	growth := observe.ReflectGrowth(threshold)
	if first < 0 {
		t.Fatal("no reflection")
	}
	limit := 1 + (rounds-1-first)*obsTokens/growth
	calls := reflectorCalls(f)
	t.Logf("%d observations of ~%d tokens, threshold %d (growth %d): %d reflector calls, %d reflections", rounds, obsTokens, threshold, growth, calls, reflections)
	if calls > limit || calls < 2 {
		t.Fatalf("%d reflector calls over %d observations, want 2..%d (one per %d tokens of new observations)", calls, rounds, limit, growth)
	}
	warns := strings.Count(logs.String(), "reflector did not condense")
	if warns != reflections {
		t.Fatalf("%d WARN lines for %d reflections not condensed, want one each:\n%s", warns, reflections, logs.String())
	}
	// Nothing was lost: every round's fact is in a live row.
	var live strings.Builder
	for _, o := range list(t, e, "t", false) {
		live.WriteString(o.Content)
	}
	for round := range rounds {
		if !strings.Contains(live.String(), fmt.Sprintf("Round %d:", round)) {
			t.Fatalf("round %d's fact is in no live observation", round)
		}
	}
	// ReflectDue, the engine's start-up walk, agrees with Observe: not due now
	// unless the last round's observations reached the growth.
	due, err := e.obs.ReflectDue(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	before := reflectorCalls(f)
	if _, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil {
		t.Fatal(err)
	}
	if called := reflectorCalls(f) > before; called != due {
		t.Fatalf("ReflectDue said %v, Observe called the reflector: %v", due, called)
	}
}
