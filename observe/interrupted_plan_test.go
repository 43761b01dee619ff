package observe_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/observe"
)

func TestObserveInterruptedPending(t *testing.T) {
	forEachBackend(t, testObserveInterruptedPending)
}

// testObserveInterruptedPending is readme72 F4: an Observe interrupted
// while its next round read the turns returned, as Result.Pending, the
// plan its last round started from: `mnemo observe` printed "observed …
// seq 9–12", then "watermark 8" (the stored one was 12). Pending is now
// the plan once the last round stored: here chunks of two turns, the
// context cancelled when the second round reads from seq 3.
func testObserveInterruptedPending(t *testing.T, b backend) {
	f := newFakeModel(t, text(`{"observations":[{"text":"The user lives in Paris.","seqs":[1]}]}`))
	src := &memSource{}
	src.add("t", 10, user("I live in Paris."), assistant("ok"), user("I bake bread."), assistant("ok"))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e := b.openEnv(t, b.Place(t), nil, f.model(t), observe.Config{})
	o, err := observe.New(observe.Config{DB: e.db, Journal: e.j, Model: f.model(t),
		Source: &cancelSource{memSource: src, at: 3, cancel: cancel}, Threshold: 20, ChunkTokens: 20, RecentN: -1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Observe(rctx, "t", observe.Options{NoReflect: true})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, observe.ErrPartial) || len(res.Observations) != 1 {
		t.Fatalf("Observe: %d stored, err %v; want 1 and ErrPartial, context.Canceled", len(res.Observations), err)
	}
	wm, err := observe.Watermark(ctx, e.db, "t")
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pending
	if wm != 2 || p.Watermark != wm || p.PendingTurns != 2 || p.PendingTokens != 20 || !p.Due {
		t.Fatalf("Pending %+v, stored watermark %d; want watermark 2, 2 turns, 20 tokens, due", p, wm)
	}
}

// cancelSource is a memSource whose read from seq at or later cancels
// the caller's context first, as an interrupt landing while the
// observer reads the turns does.
type cancelSource struct {
	*memSource
	at     int64
	cancel context.CancelFunc
}

func (s *cancelSource) Messages(ctx context.Context, threadID string, from, to int64) ([]observe.Turn, error) {
	if from >= s.at {
		s.cancel()
		return nil, ctx.Err()
	}
	return s.memSource.Messages(ctx, threadID, from, to)
}
