package observe_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestReflectorCancelNotWarned: a reflector call its context cancelled (an
// erasure of the thread, Close) returns the error but logs no WARN
// "reflector call failed; observations stay live": whoever cancelled it says
// why (the engine logs an erasure's at INFO). It logged that WARN next to the
// engine's INFO. A call that ran out of its CallTimeout still warns, and
// its error names the bound (ErrCallTimeout): it said only "context
// deadline exceeded".
func TestReflectorCancelNotWarned(t *testing.T) {
	forEachBackend(t, testReflectorCancelNotWarned)
}

func testReflectorCancelNotWarned(t *testing.T, b backend) {
	cases := []struct {
		name     string
		timeout  time.Duration // CallTimeout
		cancel   bool          // cancel the caller's context once the model is called
		want     error
		wantWarn bool
		bound    bool // the error matches ErrCallTimeout and names the bound
	}{
		{"Cancelled", time.Minute, true, context.Canceled, false, false},
		{"CallTimeout", 300 * time.Millisecond, false, context.DeadlineExceeded, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeModel(t, scripted)
			src := &memSource{}
			src.add("t", 10, user("a"), assistant("b"), user("c"), assistant("d"))
			logs := &enginetest.SyncBuffer{}
			e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 20, ChunkTokens: 20, RecentN: -1,
				CallTimeout: c.timeout, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if _, err := e.obs.Observe(ctx, "t", observe.Options{NoReflect: true}); err != nil {
				t.Fatal(err)
			}
			slow := openaitest.Text(`{"reflection":[{"text":"late"}]}`).WithDelay(time.Minute)
			f.srv.Enqueue(slow, slow) // the model client makes up to 2 attempts
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := e.obs.Reflect(rctx, "t", true)
				done <- err
			}()
			if c.cancel {
				deadline := time.Now().Add(10 * time.Second)
				for f.srv.Pending() == 2 { // a reply is taken when the request arrives
					if time.Now().After(deadline) {
						t.Fatal("the reflector never called the model")
					}
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Reflect did not return")
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Reflect = %v, want %v", err, c.want)
			}
			named := "the model call did not answer within 300ms (the observer's call bound: observe.callTimeout in mnemo.json"
			if got := errors.Is(err, observe.ErrCallTimeout) && strings.Contains(err.Error(), named); got != c.bound {
				t.Errorf("Reflect = %v: names the call bound: %v, want %v (%q, matching ErrCallTimeout)", err, got, c.bound, named)
			}
			if got := strings.Contains(logs.String(), "reflector call failed"); got != c.wantWarn {
				t.Errorf("logged the WARN: %v, want %v:\n%s", got, c.wantWarn, logs.String())
			}
			if live := list(t, e, "t", false); len(live) != 2 {
				t.Fatalf("live = %d rows, want the 2 sources", len(live))
			}
		})
	}
}
