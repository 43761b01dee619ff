package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/working"
)

// TestValidNewIDRule: ValidNewID refuses exactly "." and ".." among the
// ids ValidID takes (no URL path can hold them: WHATWG URL parsing reads
// "..", ".%2e" and "%2E%2E" alike as a dot segment), and the ids beginning
// with TombstonePrefix (erasure's); ids that only hold dots or begin or
// end with them are ids like any other.
func TestValidNewIDRule(t *testing.T) {
	for _, c := range []struct {
		id            string
		lookup, isNew bool
	}{
		{".", true, false},
		{"..", true, false},
		{"...", true, true},
		{".a", true, true},
		{"a.", true, true},
		{"..a", true, true},
		{"a..", true, true},
		{"a", true, true},
		{"", false, false},
		{"a b", false, false},
		{"./", false, false},
		{strings.Repeat(".", 128), true, true},
		{strings.Repeat(".", 129), false, false},
		// TombstonePrefix, case-sensitive, at the start only.
		{"erased-x", true, false},
		{"erased-", true, false},
		{"erased-0123456789abcdef0123", true, false},
		{"Erased-x", true, true},
		{"erased", true, true},
		{"x-erased-", true, true},
	} {
		if got := engine.ValidID(c.id); got != c.lookup {
			t.Errorf("ValidID(%q) = %v, want %v", c.id, got, c.lookup)
		}
		if got := engine.ValidNewID(c.id); got != c.isNew {
			t.Errorf("ValidNewID(%q) = %v, want %v", c.id, got, c.isNew)
		}
	}
}

// dotRule is what the rule of a refused new id says.
const dotRule = `not "." or ".."`

// refusedDot fails t unless err is a *ValidationError (ErrInvalidInput) on
// field at index whose rule names the dot ids.
func refusedDot(t *testing.T, what string, err error, index int, field string) {
	t.Helper()
	var ve *engine.ValidationError
	switch {
	case !errors.As(err, &ve):
		t.Errorf("%s: %v, want a *ValidationError on %s", what, err, field)
	case ve.Field != field || ve.Index != index || !errors.Is(err, engine.ErrInvalidInput):
		t.Errorf("%s: field %q index %d (%v), want %q index %d", what, ve.Field, ve.Index, err, field, index)
	case !strings.Contains(ve.Rule, dotRule) || !strings.Contains(err.Error(), "[A-Za-z0-9_.:@-]"):
		t.Errorf("%s: %q does not state the rule (%s)", what, err, dotRule)
	}
}

// TestAppendRefusesDotIDs: an id that is "." or ".." is refused wherever
// it would name new data: each id of an append (nothing is stored), a run
// id of LoadContext, HandleToolCall and BeginDispatch, a thread or resource
// of a dispatch.
func TestAppendRefusesDotIDs(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		seedOne(t, e)
		user := func(id string) []engine.Message {
			return []engine.Message{{ID: id, Role: engine.RoleUser, Content: "hello"}}
		}
		call := func(id string) []engine.Message {
			return []engine.Message{{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: id, Name: "lookup", Arguments: json.RawMessage(`{}`)}}}}
		}
		for _, dot := range []string{".", ".."} {
			for _, c := range []struct {
				name  string
				req   engine.AppendRequest
				index int
				field string
			}{
				{"Thread", engine.AppendRequest{ThreadID: dot, ResourceID: "r", Messages: user("")}, -1, "threadId"},
				{"Resource", engine.AppendRequest{ThreadID: "t-new", ResourceID: dot, Messages: user("")}, -1, "resourceId"},
				{"Message", engine.AppendRequest{ThreadID: "t-new", ResourceID: "r", Messages: user(dot)}, 0, "id"},
				{"ToolCall", engine.AppendRequest{ThreadID: "t-new", ResourceID: "r", Messages: call(dot)}, 0, "toolCalls[0].id"},
				{"StoredThread", engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: user(dot)}, 0, "id"},
			} {
				_, err := e.Append(ctx, c.req)
				refusedDot(t, "Append "+c.name+" "+dot, err, c.index, c.field)
			}
			_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: dot, ThreadID: "t1"})
			refusedDot(t, "LoadContext runId "+dot, err, -1, "runId")
			_, err = e.HandleToolCall(ctx, dot, "t1", "r", openai.ToolCall{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "lookup", Arguments: "{}"}})
			refusedDot(t, "HandleToolCall runId "+dot, err, -1, "runId")
			in := engine.DispatchIntent{RunID: "run1", ThreadID: "t1", ResourceID: "r", Message: call("c1")[0]}
			for field, set := range map[string]func(*engine.DispatchIntent){
				"runId":      func(in *engine.DispatchIntent) { in.RunID = dot },
				"threadId":   func(in *engine.DispatchIntent) { in.ThreadID = dot },
				"resourceId": func(in *engine.DispatchIntent) { in.ResourceID = dot },
			} {
				in := in
				set(&in)
				_, err := e.BeginDispatch(ctx, in)
				refusedDot(t, "BeginDispatch "+field+" "+dot, err, -1, field)
			}
			if _, err := e.GetThread(ctx, dot); !errors.Is(err, engine.ErrThreadNotFound) {
				t.Errorf("GetThread(%q) after the refusals: %v, want ErrThreadNotFound", dot, err)
			}
		}
		if _, err := e.GetThread(ctx, "t-new"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("GetThread(t-new) after the refusals: %v, want ErrThreadNotFound", err)
		}
		if ms, err := e.Messages(ctx, "t1", 0, 0); err != nil || len(ms) != 1 {
			t.Errorf("t1 after the refusals: %d messages, %v; want 1", len(ms), err)
		}
	})
}

// TestLoadContextNewDotThread: the context of a conversation not stored
// yet records its run under the thread and resource asked for, new data:
// thread or resource "." or ".." is refused as by Append, and nothing is
// recorded. It was recorded (GET /v1/runs?threadId=.. listed it).
func TestLoadContextNewDotThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, dot := range []string{".", ".."} {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: dot, ResourceID: "r"})
			refusedDot(t, "LoadContext new thread "+dot, err, -1, "threadId")
			_, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t-new", ResourceID: dot})
			refusedDot(t, "LoadContext resource "+dot, err, -1, "resourceId")
		}
		if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{}); err != nil || len(runs) != 0 {
			t.Errorf("runs after the refusals: %+v, %v; want none", runs, err)
		}
	})
}

// TestLegacyDotIDs: a store written before ValidNewID (here by an engine
// with legacyid.Allow) holding thread "..", resource ".", messages "." and
// "..", a tool call "." and run "." stays readable and erasable by those
// ids once reopened under the rule, and takes no new data under them.
func TestLegacyDotIDs(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		old := enginetest.MustOpen(t, st.Config(engine.Config{}))
		legacyid.Allow(old)
		seedLegacyDots(t, old)
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		e := enginetest.MustOpen(t, st.Config(engine.Config{}))

		th, err := e.GetThread(ctx, "..")
		if err != nil || th.ResourceID != "." {
			t.Fatalf("GetThread(..) = %+v, %v", th, err)
		}
		if ms, err := e.Messages(ctx, "..", 0, 0); err != nil || len(ms) != 4 || ms[0].ID != "." || ms[1].ID != ".." {
			t.Fatalf("Messages(..) = %+v, %v; want 4, the first two . and ..", ms, err)
		}
		if ms, err := e.MessagesByID(ctx, ".", "..", "."); err != nil || len(ms) != 2 {
			t.Errorf("MessagesByID(., .., .) = %d messages, %v; want 2", len(ms), err)
		}
		if ths, err := e.ListThreads(ctx, "."); err != nil || len(ths) != 2 || (ths[0].ID != ".." && ths[1].ID != "..") {
			t.Errorf("ListThreads(.) = %+v, %v; want .. and t2", ths, err)
		}
		if res, err := e.Search(ctx, engine.SearchRequest{ResourceID: ".", ThreadID: "..", Query: "lighthouse"}); err != nil || len(res.Hits) == 0 {
			t.Errorf("Search(resource ., thread ..) = %v, %v; want hits", res, err)
		}
		if rec, err := e.Journal().MemCtx(ctx, "."); err != nil || rec.ThreadID != ".." {
			t.Errorf("MemCtx(.) = %+v, %v", rec, err)
		}
		if _, err := e.Replay(ctx, ".", engine.ReplayOptions{}); err != nil {
			t.Errorf("Replay(.): %v", err)
		}
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "..", Messages: []engine.Message{{Role: engine.RoleUser, Content: "more"}}})
		refusedDot(t, "Append to the stored thread ..", err, -1, "threadId")

		if res, err := e.DeleteMessages(ctx, "."); err != nil || len(res.Messages) != 1 {
			t.Fatalf("DeleteMessages(.) = %+v, %v; want 1 message", res, err)
		}
		if res, err := e.DeleteThread(ctx, ".."); err != nil || len(res.Messages) != 3 || res.Threads[0] != ".." {
			t.Fatalf("DeleteThread(..) = %+v, %v; want 3 messages", res, err)
		}
		if _, err := e.GetThread(ctx, ".."); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("GetThread(..) after DeleteThread: %v, want ErrThreadNotFound", err)
		}
		if _, err := e.Journal().MemCtx(ctx, "."); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("MemCtx(.) after DeleteThread: %v, want journal.ErrNotFound", err)
		}
		if ths, err := e.ListThreads(ctx, "."); err != nil || len(ths) != 1 || ths[0].ID != "t2" {
			t.Fatalf("ListThreads(.) after DeleteThread = %+v, %v; want t2", ths, err)
		}
		if res, err := e.DeleteResource(ctx, "."); err != nil || len(res.Messages) != 1 {
			t.Fatalf("DeleteResource(.) = %+v, %v; want 1 message", res, err)
		}
		if ths, err := e.ListThreads(ctx, "."); err != nil || len(ths) != 0 {
			t.Errorf("ListThreads(.) after DeleteResource = %+v, %v; want none", ths, err)
		}
	})
}

// TestLegacyDotIDsExpire: retention reaches a thread and a resource stored
// under dot ids: Expire by resource "." erases thread "..".
func TestLegacyDotIDsExpire(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		legacyid.Allow(e)
		seedLegacyDots(t, e)
		res, err := e.Expire(ctx, engine.ExpireRequest{ResourceID: ".", Idle: 1})
		if err != nil || len(res.Threads) != 2 {
			t.Fatalf("Expire(resource .) = %+v, %v; want 2 threads", res, err)
		}
		if _, err := e.GetThread(ctx, ".."); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("GetThread(..) after Expire: %v, want ErrThreadNotFound", err)
		}
	})
}

// seedLegacyDots stores, through e (legacyid.Allow), thread ".." of
// resource "." with messages ".", "..", an assistant call "." and its tool
// answer, run "." of that thread, and thread "t2" of resource ".".
func seedLegacyDots(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: ".", Messages: []engine.Message{
		{ID: ".", Role: engine.RoleUser, Content: "the lighthouse keeper"},
		{ID: "..", Role: engine.RoleAssistant, Content: "noted"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: ".", Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
		{Role: engine.RoleTool, ToolCallID: ".", Name: "lookup", Content: "found"},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: ".."}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: ".", Messages: []engine.Message{{Role: engine.RoleUser, Content: "another"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWorkingMemoryResourceKeyRule: a resource-scoped working memory
// written through the library (working.Memory.Set, with a key the caller
// makes) holds the resource's id to ValidNewID, as Append's resourceId:
// the working package reads any text after "resource:", so "resource:.."
// and "resource:a b" were stored for resources no id can name. Nothing is
// stored for a refused key.
func TestWorkingMemoryResourceKeyRule(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	wm, err := e.OpenWorkingMemory(working.Config{Template: "# Notes\n", Scope: working.ScopeResource})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wm.Set(ctx, working.ResourceKey("r-1.a"), "# Notes\n- ok\n", working.Origin{}); err != nil {
		t.Fatalf("a valid resource id: %v", err)
	}
	for _, id := range []string{".", "..", "a b", "a/b", "ü", strings.Repeat("x", 129)} {
		key := working.ResourceKey(id)
		if _, err := wm.Set(ctx, key, "# Notes\n- no\n", working.Origin{}); !errors.Is(err, working.ErrInvalidKey) {
			t.Errorf("Set %q: %v, want working.ErrInvalidKey", key, err)
		}
		if st, err := wm.Get(ctx, key); err != nil || st.Version != 0 {
			t.Errorf("Get %q after the refusal: version %d, %v; want nothing stored", key, st.Version, err)
		}
	}
}
