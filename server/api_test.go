package server_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestAPIFlow drives every read and write route as an agent and an
// operator would, over a real engine, and validates each answer against
// the OpenAPI document served by the same server.
func TestAPIFlow(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-alice", "res-alice", aliceToken,
		"my cat is called Miso and she loves sardines", "Miso sounds lovely",
		"I moved to Lisbon last spring", "how do you like Lisbon?",
		"what should I feed my cat tonight?")

	var th engine.Thread
	h.ok("GET", "/v1/threads/{thread}", "/v1/threads/t-alice", aliceToken, nil, 200).decode(t, &th)
	if th.ResourceID != "res-alice" || th.MessageCount != 5 {
		t.Fatalf("thread %+v, want res-alice with 5 messages", th)
	}
	var tl server.ThreadList
	h.ok("GET", "/v1/threads", "/v1/threads", aliceToken, nil, 200).decode(t, &tl)
	if len(tl.Threads) != 1 || tl.Threads[0].ID != "t-alice" {
		t.Fatalf("threads %+v", tl.Threads)
	}
	h.ok("GET", "/v1/threads", "/v1/threads?resourceId=res-alice", aliceToken, nil, 200)
	var ml server.MessageList
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-alice/messages?fromSeq=2&toSeq=3", aliceToken, nil, 200).decode(t, &ml)
	if len(ml.Messages) != 2 || ml.Messages[0].Seq != 2 || ml.Messages[1].Content != "I moved to Lisbon last spring" {
		t.Fatalf("messages %+v", ml.Messages)
	}

	t.Run("Search", func(t *testing.T) {
		var sr engine.SearchResult
		h.ok("POST", "/v1/search", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": "sardines cat", "recall": map[string]any{"topK": 2, "messageRange": 0}}, 200).decode(t, &sr)
		if len(sr.Hits) == 0 || sr.Hits[0].Reason != "hit" || !strings.Contains(sr.Hits[0].Message.Content, "sardines") && !strings.Contains(sr.Hits[0].Message.Content, "cat") {
			t.Fatalf("hits %+v", sr.Hits)
		}
		if sr.Hits[0].Message.Role == "" || sr.Hits[0].Message.Seq == 0 || sr.Hits[0].Message.ThreadID != "t-alice" || sr.Hits[0].Score == nil {
			t.Fatalf("hit without role, seq, thread or score: %+v", sr.Hits[0])
		}
	})

	var c server.Context
	t.Run("Context", func(t *testing.T) {
		h.ok("POST", "/v1/context", "/v1/context", aliceToken, map[string]any{"threadId": "t-alice", "runId": "run-1", "recentN": 1, "query": "cat food sardines", "recall": map[string]any{"topK": 2}}, 200).decode(t, &c)
		if c.RunID != "run-1" || c.MemCtx == nil || c.MemCtx.PromptHash != c.PromptHash || !strings.HasPrefix(c.PromptHash, "sha256:") {
			t.Fatalf("context run=%s hash=%q memctx=%+v", c.RunID, c.PromptHash, c.MemCtx)
		}
		if len(c.MemCtx.Recalled) == 0 || len(c.Messages) < 2 {
			t.Fatalf("nothing recalled: %+v", c.MemCtx)
		}
		if !strings.Contains(c.System, "# User") {
			t.Fatalf("working memory not in the system part: %q", c.System)
		}
		r := h.do("POST", "/v1/context", aliceToken, map[string]any{"threadId": "t-alice", "runId": "run-1"})
		if r.status != 409 || r.problem(t).Field != "runId" {
			t.Fatalf("reused run id: %d %s", r.status, r.body)
		}
		h.validate("POST", "/v1/context", r)
		// Another tenant's run id is refused whatever replaceRun says, and
		// the problem says so instead of suggesting replaceRun.
		h.seed("t-bob", "res-bob", bobToken, "bob here", "hi")
		for _, replace := range []bool{false, true} {
			r := h.do("POST", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-1", "replaceRun": replace})
			p := r.problem(t)
			if r.status != 409 || p.Field != "runId" || !strings.Contains(p.Detail, "belongs to another conversation") || strings.Contains(p.Detail, "set replaceRun") {
				t.Fatalf("another tenant's run id, replaceRun %v: %d %s", replace, r.status, r.body)
			}
		}
	})

	t.Run("Runs", func(t *testing.T) {
		var rl server.RunList
		h.ok("GET", "/v1/runs", "/v1/runs", aliceToken, nil, 200).decode(t, &rl)
		if len(rl.Runs) != 1 || rl.Runs[0].RunID != "run-1" || rl.Runs[0].CreatedAt.IsZero() {
			t.Fatalf("runs %+v", rl.Runs)
		}
		var rec struct {
			PromptHash           string
			Options              struct{ Rules, Channels map[string]any }
			WorkingMemoryScope   string
			WorkingMemoryVersion *int64
		}
		h.ok("GET", "/v1/runs/{run}/memctx", "/v1/runs/run-1/memctx", aliceToken, nil, 200).decode(t, &rec)
		if rec.PromptHash != c.PromptHash {
			t.Fatalf("memctx hash %q, want %q", rec.PromptHash, c.PromptHash)
		}
		// The working-memory state the run rendered: t-alice's, never written.
		if v := rec.WorkingMemoryVersion; rec.WorkingMemoryScope != "thread" || v == nil || *v != 0 {
			t.Fatalf("memctx workingMemoryScope %q, workingMemoryVersion %v; want thread, 0", rec.WorkingMemoryScope, v)
		}
		// The hybrid rules that ran (hash-384's: no session rule).
		if want := map[string]any{"exchangeOrder": true, "speakerWeight": 2.0, "dateWeight": 2.0}; !reflect.DeepEqual(rec.Options.Rules, want) {
			t.Fatalf("memctx options.rules %v, want %v", rec.Options.Rules, want)
		}
		// The channel tuning that ran (the defaults).
		if want := map[string]any{"pool": 100.0, "contextWeight": 0.5, "turnAfter": true, "exchange": true, "k1": 1.2, "b": 0.75, "dates": true, "answerTypes": true, "compounds": true}; !reflect.DeepEqual(rec.Options.Channels, want) {
			t.Fatalf("memctx options.channels %v, want %v", rec.Options.Channels, want)
		}
		var rp server.Replay
		h.ok("POST", "/v1/runs/{run}/replay", "/v1/runs/run-1/replay", aliceToken, map[string]any{"withoutRecalled": true}, 200).decode(t, &rp)
		if rp.Original.PromptHash != c.PromptHash || rp.Counterfactual.PromptHash == c.PromptHash || len(rp.Removed) == 0 {
			t.Fatalf("replay original %s counterfactual %s removed %d", rp.Original.PromptHash, rp.Counterfactual.PromptHash, len(rp.Removed))
		}
	})

	t.Run("WorkingMemory", func(t *testing.T) {
		var wm server.WorkingMemory
		h.ok("GET", "/v1/threads/{thread}/working-memory", "/v1/threads/t-alice/working-memory", aliceToken, nil, 200).decode(t, &wm)
		if wm.Version != 0 || wm.Content != "# User\n- Name:\n" || wm.Mode != "template" {
			t.Fatalf("initial working memory %+v", wm)
		}
		h.ok("PUT", "/v1/threads/{thread}/working-memory", "/v1/threads/t-alice/working-memory", aliceToken, map[string]any{"content": "# User\n- Name: Ana\n"}, 200).decode(t, &wm)
		if wm.Version != 1 || wm.Changed == nil || !*wm.Changed {
			t.Fatalf("after PUT %+v", wm)
		}
		r := h.do("PUT", "/v1/threads/t-alice/working-memory", aliceToken, map[string]any{"patch": map[string]any{"a": 1}})
		if r.status != 422 {
			t.Fatalf("merge patch on a template memory: %d %s", r.status, r.body)
		}
		h.validate("PUT", "/v1/threads/{thread}/working-memory", r)
		r = h.do("GET", "/v1/resources/res-alice/working-memory", aliceToken, nil)
		if r.status != 400 || r.problem(t).Field != "scope" {
			t.Fatalf("resource route on a thread-scoped memory: %d %s", r.status, r.body)
		}
	})

	t.Run("Observations", func(t *testing.T) {
		var ol server.ObservationList
		h.ok("GET", "/v1/threads/{thread}/observations", "/v1/threads/t-alice/observations", aliceToken, nil, 200).decode(t, &ol)
		h.ok("GET", "/v1/resources/{resource}/observations", "/v1/resources/res-alice/observations?all=true", aliceToken, nil, 200)
	})

	t.Run("Health", func(t *testing.T) {
		var hz server.Health
		h.ok("GET", "/healthz", "/healthz", "", nil, 200).decode(t, &hz)
		if hz.Status != "ok" {
			t.Fatalf("health %+v", hz)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		var ml server.MessageList
		h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-alice/messages", aliceToken, nil, 200).decode(t, &ml)
		var er server.EraseResult
		h.ok("DELETE", "/v1/messages/{message}", "/v1/messages/"+ml.Messages[0].ID, aliceToken, nil, 200).decode(t, &er)
		if len(er.Messages) != 1 || er.Messages[0] != ml.Messages[0].ID {
			t.Fatalf("erase %+v", er)
		}
		if er.IndexesRebuilt {
			t.Fatalf("a message erasure says it rebuilt the indexes: %+v", er)
		}
		// A thread erasure rebuilds the indexes on SQLite (the harness's
		// backend): the answer says so, as engine.EraseResult does.
		er = server.EraseResult{}
		h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-alice", aliceToken, nil, 200).decode(t, &er)
		if len(er.Threads) != 1 || !er.IndexesRebuilt {
			t.Fatalf("erase thread %+v, want one thread and indexesRebuilt", er)
		}
		if r := h.do("GET", "/v1/threads/t-alice", aliceToken, nil); r.status != 404 {
			t.Fatalf("erased thread still answers %d", r.status)
		}
		h.seed("t-alice-2", "res-alice", aliceToken, "another conversation")
		h.ok("DELETE", "/v1/resources/{resource}", "/v1/resources/res-alice", aliceToken, nil, 200).decode(t, &er)
		if len(er.Threads) != 1 || er.Threads[0] != "t-alice-2" {
			t.Fatalf("erase resource %+v", er)
		}
		// A copy of an erased text left in a free-list trunk page, where
		// no page says which bytes are live, is taken out only by VACUUM:
		// the purge vacuums, and the answer says why
		// (engine.EraseResult.Vacuumed). (A copy a live long message of
		// another thread holds is that row's, and vacuumed nothing since
		// erase70.)
		const left = "a sentence whose copy a free-list page keeps"
		h.seed("t-alice-3", "res-alice", aliceToken, left)
		enginetest.PlantInTrunk(t, filepath.Join(h.e.Dir(), engine.DatabaseFile), left)
		er = server.EraseResult{}
		h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-alice-3", aliceToken, nil, 200).decode(t, &er)
		if er.Vacuumed != "residue" {
			t.Fatalf("erase thread %+v, want vacuumed \"residue\"", er)
		}
	})
}
