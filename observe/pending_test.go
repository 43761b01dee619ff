package observe_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/observe"
)

// TestObserverSkipsPendingTurn: with no recent window at all, the observer
// still never sends the pending turn (the user turns after the last answer,
// and the tool loop working on them), neither through Observe nor through
// ObserveRange — also when the watermark sits right after the answer, so
// the turns after it hold no answer of their own.
func TestObserverSkipsPendingTurn(t *testing.T) { forEachBackend(t, testObserverSkipsPendingTurn) }

func testObserverSkipsPendingTurn(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	src := &memSource{}
	src.add("t", 50, user("I live in Porto"), assistant("Noted"), user("PENDING first"), user("PENDING second"),
		call("c1", "lookup"), result("c1", "PENDING result"))
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{RecentN: -1, Threshold: 1, ChunkTokens: 10000})
	res, err := e.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observations) != 1 || res.Observations[0].ToSeq != 2 {
		t.Fatalf("observations %+v, want one of 1..2", res.Observations)
	}
	if strings.Contains(f.last().Messages[len(f.last().Messages)-1].Content, "PENDING") {
		t.Fatal("the pending turn was sent to the observer")
	}
	if res.Pending.PendingTurns != 0 {
		t.Fatalf("plan after: %d turns pending, want 0 observable", res.Pending.PendingTurns)
	}
	for _, r := range [][2]int64{{3, 3}, {3, 6}, {1, 4}} {
		if _, _, err := e.obs.ObserveRange(ctx, "t", r[0], r[1]); !errors.Is(err, observe.ErrConfig) || !strings.Contains(err.Error(), "pending turn") {
			t.Fatalf("ObserveRange %v: err = %v, want ErrConfig naming the pending turn", r, err)
		}
	}
	// Answered, the question is observable.
	src.add("t", 50, assistant("You live in Porto; the lookup says so."))
	res, err = e.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
	if err != nil || len(res.Observations) != 1 || res.Observations[0].ToSeq != 7 {
		t.Fatalf("after the answer: %+v, %v; want 3..7 observed", res.Observations, err)
	}
}
