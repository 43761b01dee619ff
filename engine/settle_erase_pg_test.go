package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestSettlementRacingErasureAcrossPools is readme73 F1: two engines (two
// pools, as two processes) on one Postgres schema; engine a settles a
// dispatch and, once its checks passed inside the append's transaction
// (SetAfterSettleCheck), engine b erases the dispatch's thread, resource
// or call message. Before, the settlement read its dispatch before it took
// the thread's append lock: b's erasure committed in between, a's append
// re-created the erased thread (or stored the result after the erased
// call), and SettleDispatch answered "journal: dispatch not found", the
// result stored. Now the settlement holds the lock when it reads the
// dispatch: the erasure waits for it to commit and erases it with the
// rest, as when the settlement comes first in one process.
func TestSettlementRacingErasureAcrossPools(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		if be.Name != enginetest.Postgres.Name {
			t.Skip("two pools on one schema need Postgres; SQLite has one writer (TestDispatchSettleAfterErasure)")
		}
		for _, how := range []string{"DeleteThread", "DeleteResource", "DeleteMessages"} {
			t.Run(how, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				st := be.NewStore(t)
				a, b := openEngine(t, st.Config(engine.Config{})), openEngine(t, st.Config(engine.Config{}))
				d := beginCharge(t, a, "alice", "chat", "run-1")
				erased := make(chan error, 1)
				var once sync.Once
				engine.SetAfterSettleCheck(a, func() {
					once.Do(func() {
						go func() {
							var err error
							switch how {
							case "DeleteThread":
								_, err = b.DeleteThread(ctx, "chat")
							case "DeleteResource":
								_, err = b.DeleteResource(ctx, "alice")
							case "DeleteMessages":
								_, err = b.DeleteMessages(ctx, d.MessageID)
							}
							erased <- err
						}()
						// b's erasure either commits now (nothing orders it
						// after the settlement) or waits for the thread's lock.
						waitThreadLock(ctx, t, st.Config(engine.Config{}).Postgres, "chat", erased)
					})
				})
				_, err := a.SettleDispatch(ctx, engine.Settlement{RunID: "run-1", ResourceID: "alice", CallID: "call_0", Result: "charged"})
				if eerr := <-erased; eerr != nil {
					t.Fatal("b's erasure:", eerr)
				}
				if err != nil && !errors.Is(err, engine.ErrDispatchErased) {
					t.Fatalf("settlement racing %s: %v, want it settled (then erased) or ErrDispatchErased", how, err)
				}
				ms, merr := a.Messages(ctx, "chat", 0, 0)
				switch {
				case how != "DeleteMessages" && !errors.Is(merr, engine.ErrThreadNotFound):
					t.Fatalf("thread chat after %s and the settlement (err %v): messages %+v, %v; want it erased", how, err, ms, merr)
				case how == "DeleteMessages" && merr != nil:
					t.Fatal(merr)
				}
				for _, m := range ms {
					if m.ID == d.MessageID || (err != nil && m.Role == engine.RoleTool) {
						t.Fatalf("after %s and the settlement (err %v): %s (%s) is stored", how, err, m.ID, m.Role)
					}
				}
			})
		}
	})
}
