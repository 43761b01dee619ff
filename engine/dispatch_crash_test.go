package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// The dispatch crash tests run an agent in a subprocess (this test binary,
// re-executed with dispatchCrashEnv set) and kill it with SIGKILL: after the
// intent and before the action ("intent"), after the action and before the
// settlement ("dispatched"), or at random moments of a stream of intents
// and settlements ("random"). The parent reopens the directory and checks
// that the unknown outcome survives, is never dropped, and is settled once.
const dispatchCrashEnv = "MNEMO_DISPATCH_CRASH" // "<dir>|<stage>|<effects file>"

// TestDispatchCrashWriter is the subprocess.
//
// SQLite only: the subprocess of TestDispatchCrash.
func TestDispatchCrashWriter(t *testing.T) {
	spec := os.Getenv(dispatchCrashEnv)
	if spec == "" {
		t.Skip("only run by TestDispatchCrash")
	}
	parts := strings.Split(spec, "|")
	dir, stage, effects := parts[0], parts[1], parts[2]
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("writer open: %v", err)
	}
	if stage == "random" {
		fmt.Println("ready")
		for i := 0; ; i++ {
			run := fmt.Sprintf("run-%d-%d", os.Getpid(), i)
			if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: run, ThreadID: "chat", ResourceID: "alice", Message: chargeCall("", "call_0")}); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: run, ResourceID: "alice", CallID: "call_0", Result: "charged " + run}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "alice",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "please pay the invoice"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-1", ThreadID: "chat", ResourceID: "alice", Message: chargeCall("", "call_0")}); err != nil {
		t.Fatal(err)
	}
	if stage == "dispatched" { // the action: a charge the payment provider records
		f, err := os.OpenFile(effects, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("charged 4200 EUR\n")
		f.Sync()
		f.Close()
	}
	fmt.Println("ready")
	time.Sleep(time.Hour) // killed here, before the settlement
}

// startDispatchWriter runs the subprocess until it prints "ready", waits
// wait more, and kills it.
func startDispatchWriter(t *testing.T, dir, stage, effects string, wait time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDispatchCrashWriter$", "-test.count=1")
	cmd.Env = childEnv(t, fmt.Sprintf("%s=%s|%s|%s", dispatchCrashEnv, dir, stage, effects))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.HasPrefix(line, "ready")
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s: the writer failed before it was ready", stage)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s: the writer was not ready in time", stage)
	}
	time.Sleep(wait)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// loadUnknown loads a context of the crashed thread and checks that the
// call is there with its unknown outcome, listed as unsettled, not dropped.
func loadUnknown(t *testing.T, e *engine.Engine, run string) {
	t.Helper()
	ctx := context.Background()
	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "chat", ResourceID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if syn := unsettledIn(t, c, engine.DefaultUnsettledText); len(syn) != 1 {
		t.Fatalf("%s: context %+v, want the call with its unknown outcome", run, c.Messages)
	}
	if len(c.MemCtx.Unsettled) != 1 {
		t.Fatalf("%s: memctx unsettled %+v", run, c.MemCtx.Unsettled)
	}
	for _, d := range c.MemCtx.Dropped {
		if d.Reason == journal.ReasonUnpairedToolCall {
			t.Fatalf("%s: the call was dropped: %+v", run, d)
		}
	}
	us, err := e.Unsettled(ctx, "chat", "alice")
	if err != nil || len(us) != 1 || us[0].RunID != "run-1" {
		t.Fatalf("%s: Unsettled = %+v (%v)", run, us, err)
	}
}

// TestDispatchCrash is SQLite only: the writer reopens a data directory (the journal's dispatches run on Postgres in journal's suite).
func TestDispatchCrash(t *testing.T) {
	if os.Getenv(dispatchCrashEnv) != "" {
		t.Skip("writer process")
	}
	for _, stage := range []string{"intent", "dispatched"} {
		t.Run(stage, func(t *testing.T) {
			ctx := context.Background()
			base := t.TempDir()
			dir, effects := filepath.Join(base, "data"), filepath.Join(base, "effects.log")
			startDispatchWriter(t, dir, stage, effects, 0)

			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			loadUnknown(t, e, "after-crash")
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			// It survives another reopen, and is still never dropped.
			e = enginetest.MustOpen(t, engine.Config{Dir: dir})
			loadUnknown(t, e, "after-reopen")

			// The application reconciles with the payment provider, then settles.
			set := engine.Settlement{RunID: "run-1", ResourceID: "alice", CallID: "call_0", Error: "not charged (the provider has no record)"}
			if b, err := os.ReadFile(effects); err == nil && strings.Contains(string(b), "charged") {
				set = engine.Settlement{RunID: "run-1", ResourceID: "alice", CallID: "call_0", Result: "charged 4200 EUR"}
			} else if stage == "dispatched" {
				t.Fatalf("the action's effect is missing: %v", err)
			}
			if _, err := e.SettleDispatch(ctx, set); err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "after-settle", ThreadID: "chat", ResourceID: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			last := c.Messages[len(c.Messages)-1]
			if len(c.MemCtx.Unsettled) != 0 || last.Role != engine.RoleTool || last.Reason == journal.ReasonUnsettled {
				t.Fatalf("after settlement: %+v", c.Messages)
			}
		})
	}
}

// TestDispatchCrashRandom kills a stream of intents and settlements at
// random moments: an intent is all or nothing (never an assistant call
// without its dispatch), a settlement too (never a result the journal does
// not know of), and every unsettled call reaches the prompt.
//
// SQLite only: as TestDispatchCrash.
func TestDispatchCrashRandom(t *testing.T) {
	if os.Getenv(dispatchCrashEnv) != "" {
		t.Skip("writer process")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 15))
	for i := range 4 {
		startDispatchWriter(t, dir, "random", filepath.Join(base, "unused"), time.Duration(5+rng.IntN(120))*time.Millisecond)
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
		if err != nil {
			t.Fatal(err)
		}
		var orphanCalls, orphanResults, unsettled int
		db := engine.DBOf(e)
		db.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE id LIKE 'dispatch-call-%'
			AND id NOT IN (SELECT message_id FROM dispatches)`).Scan(&orphanCalls)
		db.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE id LIKE 'dispatch-result-%'
			AND id NOT IN (SELECT result_id FROM dispatches)`).Scan(&orphanResults)
		db.QueryRowContext(ctx, `SELECT COUNT(*) FROM dispatches WHERE result_id = ''`).Scan(&unsettled)
		if orphanCalls != 0 || orphanResults != 0 {
			t.Fatalf("kill %d: %d calls without their intent, %d results without their settlement", i, orphanCalls, orphanResults)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("check-%d", i), ThreadID: "chat", ResourceID: "alice", RecentN: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(c.MemCtx.Unsettled); got != unsettled {
			t.Fatalf("kill %d: %d unsettled calls in the prompt, %d in the journal", i, got, unsettled)
		}
		for _, d := range c.MemCtx.Dropped {
			if d.Reason == journal.ReasonUnpairedToolCall {
				t.Fatalf("kill %d: a call was dropped: %+v", i, d)
			}
		}
		if err := e.Check(ctx); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		e.Close()
	}
}
