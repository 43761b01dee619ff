package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestLoadContextErasedAcrossPools: two engines (two pools, as two
// processes) on one schema. Engine a composes run r1's context, which
// holds "I live in Lyon." (in its window, and as its query); engine b's
// erasure commits after a read the turns and before a stores the record
// (SetBeforeMemCtx holds a there). The in-process fence cannot order the
// two, so the record was stored with the erased text in its previews and
// query and without the contextErased mark, and r1's working-memory write
// then passed its check. Now the record's transaction rechecks, under the
// run-context lock of the resource, what the context held: the record is
// scrubbed and marked as the erasure would have done had it come right
// after, and the write is refused. A DeleteThread of the run's own thread
// in between leaves no record (ErrThreadNotFound), as in one process.
func TestLoadContextErasedAcrossPools(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		if be.Name != enginetest.Postgres.Name {
			t.Skip("two pools on one schema need Postgres; on SQLite one process opens a directory and its fence orders the erasure (TestLoadContextRacesDeleteThread)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cfg := be.NewStore(t).Config(engine.Config{WorkingMemory: &working.Config{Template: "# P\n", Scope: working.ScopeResource}})
		a, b := openEngine(t, cfg), openEngine(t, cfg)
		// race runs a's LoadContext of req with erase run on b while a's
		// context is composed and its record not yet stored.
		race := func(req engine.LoadRequest, erase func() error) (*engine.Context, error) {
			var once sync.Once
			engine.SetBeforeMemCtx(a, func() {
				once.Do(func() {
					if err := erase(); err != nil {
						t.Error("the erasure on b:", err)
					}
				})
			})
			defer engine.SetBeforeMemCtx(a, nil)
			return a.LoadContext(ctx, req)
		}
		t.Run("DeleteMessages", func(t *testing.T) {
			ar, err := a.Append(ctx, engine.AppendRequest{ThreadID: "w1", ResourceID: "ana", Messages: []engine.Message{
				user("", "I live in Lyon."), {Role: engine.RoleAssistant, Content: "Noted."}}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := race(engine.LoadRequest{RunID: "r1", ThreadID: "w1", Query: "I live in Lyon."}, func() error {
				_, err := b.DeleteMessages(ctx, ar.IDs[0])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.System+c.Messages[0].Content, "Lyon") {
				t.Fatalf("precondition: r1's context does not hold the turn read before the erasure: %+v", c.Messages)
			}
			raw, err := a.Journal().RawMemCtx(ctx, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), "Lyon") || !strings.Contains(string(raw), `"contextErased":true`) {
				t.Errorf("r1's record after an erasure in another process: %s\nwant no erased text and contextErased", raw)
			}
			call := openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- City: Lyon\n"}`)
			msg, err := a.HandleToolCall(ctx, "r1", "w1", "ana", call)
			if err == nil && !strings.Contains(msg.Content, "erased") {
				t.Errorf("r1's working-memory write after the erasure: %+v, want it refused", msg)
			}
		})
		t.Run("DeleteRecalledThread", func(t *testing.T) {
			// A recalled turn of another thread of the resource, deleted by
			// b meanwhile: its preview goes, its ids become tombstones.
			appendTo(t, a, "w5", "ana", user("", "My sister lives in Grenoble."))
			appendTo(t, a, "w6", "ana", user("", "hello"))
			if err := a.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := race(engine.LoadRequest{RunID: "r5", ThreadID: "w6", Query: "sister",
				Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical, Scope: recall.ScopeResource}}, func() error {
				_, err := b.DeleteThread(ctx, "w5")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.MemCtx.Recalled) != 1 {
				t.Fatalf("precondition: r5 recalled %d turns, want the Grenoble one", len(c.MemCtx.Recalled))
			}
			raw, err := a.Journal().RawMemCtx(ctx, "r5")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), "Grenoble") || strings.Contains(string(raw), `"w5"`) || !strings.Contains(string(raw), `"contextErased":true`) {
				t.Errorf("r5's record after a DeleteThread of its recalled turn's thread in another process: %s\nwant neither the text nor the thread id, and contextErased", raw)
			}
		})
		t.Run("DeleteThread", func(t *testing.T) {
			if _, err := a.Append(ctx, engine.AppendRequest{ThreadID: "w2", ResourceID: "ana", Messages: []engine.Message{user("", "I live in Porto.")}}); err != nil {
				t.Fatal(err)
			}
			_, err := race(engine.LoadRequest{RunID: "r2", ThreadID: "w2"}, func() error {
				_, err := b.DeleteThread(ctx, "w2")
				return err
			})
			if !errors.Is(err, engine.ErrThreadNotFound) || !strings.HasPrefix(err.Error(), "engine: thread not found: w2 was erased while its context was composed") {
				t.Errorf("LoadContext of a thread another process deleted meanwhile: %v, want ErrThreadNotFound", err)
			}
			if raw, err := a.Journal().RawMemCtx(ctx, "r2"); err == nil {
				t.Errorf("r2's record of the deleted thread was stored: %s", raw)
			}
		})
	})
}
