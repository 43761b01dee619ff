package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

const wmSchema = `{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"},"todo":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`

func wmSection(t *testing.T, c *engine.Context) string {
	t.Helper()
	i := strings.Index(c.System, "## Working memory")
	if i < 0 {
		return ""
	}
	return c.System[i:]
}

func appendUser(t *testing.T, e *engine.Engine, thread, resource, text string) {
	t.Helper()
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: resource,
		Messages: []engine.Message{{Role: engine.RoleUser, Content: text}}}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkingMemoryInLoadContext(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)}})
		appendUser(t, e, "t1", "u1", "I moved to Porto")

		c1, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(c1.Tools), 1; got != want {
			t.Fatalf("tools=%d, want %d", got, want)
		}
		if got, want := c1.Tools[0].Function.Name, tools.UpdateWorkingMemoryName; got != want {
			t.Fatalf("tool=%q, want %q", got, want)
		}
		sec := wmSection(t, c1)
		if !strings.Contains(sec, "<working_memory") || !strings.Contains(sec, "{}") {
			t.Fatalf("system part lacks the working memory:\n%s", c1.System)
		}
		if got, want := c1.MemCtx.WorkingMemoryChars, utf8.RuneCountInString(sec); got != want {
			t.Fatalf("workingMemoryChars=%d, want the rendered size %d", got, want)
		}

		msg, err := e.HandleToolCall(ctx, "r1", "t1", "", openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"city":"Porto"}`))
		if err != nil {
			t.Fatal(err)
		}
		if msg.ToolCallID != "call_1" || !strings.Contains(msg.Content, `"ok":true`) {
			t.Fatalf("tool message=%+v", msg)
		}
		c2, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r2", ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if sec := wmSection(t, c2); !strings.Contains(sec, `"city": "Porto"`) || !strings.Contains(sec, `version="1"`) {
			t.Fatalf("updated state not rendered:\n%s", sec)
		}
		if c2.PromptHash == c1.PromptHash {
			t.Fatal("prompt hash unchanged although the working memory changed")
		}

		bad, err := e.HandleToolCall(ctx, "r2", "t1", "", openaitest.ToolCall("call_2", tools.UpdateWorkingMemoryName, `{"city":5}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(bad.Content, "/city") || !strings.Contains(bad.Content, `"ok":false`) {
			t.Fatalf("refusal=%s", bad.Content)
		}
	})
}

func TestWorkingMemoryOffReadOnlyAndResourceScope(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		t.Run("Off", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{})
			appendUser(t, e, "t", "u", "hi")
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Tools) != 0 || wmSection(t, c) != "" || c.MemCtx.WorkingMemoryChars != 0 {
				t.Fatalf("working memory present while off: tools=%d chars=%d", len(c.Tools), c.MemCtx.WorkingMemoryChars)
			}
			if _, err := e.WorkingMemory(); !errors.Is(err, engine.ErrNoWorkingMemory) {
				t.Fatalf("err=%v, want ErrNoWorkingMemory", err)
			}
		})
		t.Run("ReadOnly", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema), ReadOnly: true}})
			appendUser(t, e, "t", "u", "hi")
			mem, err := e.WorkingMemory()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mem.Merge(ctx, working.ThreadKey("t"), map[string]any{"name": "Ana"}, working.Origin{}); err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Tools) != 0 {
				t.Fatalf("read-only memory offers %d tools", len(c.Tools))
			}
			if sec := wmSection(t, c); !strings.Contains(sec, `"name": "Ana"`) || !strings.Contains(sec, "read-only") {
				t.Fatalf("read-only state not rendered:\n%s", c.System)
			}
			msg, err := e.HandleToolCall(ctx, "r", "t", "", openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"name":"Eve"}`))
			if err != nil || !strings.Contains(msg.Content, "unknown tool") {
				t.Fatalf("read-only call: %+v, %v", msg, err)
			}
		})
		t.Run("Resource", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# User\n- City:\n", Scope: working.ScopeResource}})
			appendUser(t, e, "a", "u", "hi")
			appendUser(t, e, "b", "u", "hello")
			appendUser(t, e, "c", "other", "hey")
			if _, err := e.HandleToolCall(ctx, "r", "a", "", openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"search":"- City:","replace":"- City: Lyon"}`)); err != nil {
				t.Fatal(err)
			}
			cb, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "b"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(wmSection(t, cb), "- City: Lyon") {
				t.Fatalf("thread b does not see the resource's memory:\n%s", cb.System)
			}
			cc, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "c"})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(cc.System, "Lyon") {
				t.Fatalf("another resource sees the memory:\n%s", cc.System)
			}
			if _, err := e.HandleToolCall(ctx, "r", "a", "other", openaitest.ToolCall("c2", tools.UpdateWorkingMemoryName, `{}`)); !errors.Is(err, engine.ErrResourceMismatch) {
				t.Fatalf("err=%v, want ErrResourceMismatch", err)
			}
		})
		t.Run("ErrInvalidSchema", func(t *testing.T) {
			// Open refuses it (before, every LoadContext did).
			cfg := be.NewStore(t).Config(engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(`{"type":"array"}`)}})
			e, err := engine.Open(ctx, cfg)
			if err == nil {
				e.Close()
			}
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || ve.Field != "WorkingMemory" || !errors.Is(err, working.ErrInvalidSchema) {
				t.Fatalf("Open: %v, want a *ValidationError on WorkingMemory matching ErrInvalidSchema", err)
			}
		})
	})
}

func TestHandleToolCallAcrossReopen(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		cfg := st.Config(engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)}})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		appendUser(t, e, "t", "u", "add milk")
		call := openaitest.ToolCall("call_7", tools.UpdateWorkingMemoryName, `{"todo":["milk"]}`)
		first, err := e.HandleToolCall(ctx, "run-1", "t", "", call)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()

		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		again, err := e.HandleToolCall(ctx, "run-1", "t", "", call)
		if err != nil {
			t.Fatal(err)
		}
		if again.Content != first.Content {
			t.Fatalf("resumed result=%q, want %q", again.Content, first.Content)
		}
		mem, _ := e.WorkingMemory()
		h, err := mem.History(ctx, working.ThreadKey("t"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(h), 1; got != want {
			t.Fatalf("versions=%d, want %d: the call was applied twice", got, want)
		}
	})
}

// TestStoredWorkingMode reports the mode a state was written in, without a
// working-memory configuration (mnemo wm's first question), and refuses a
// malformed key and a closed engine.
func TestStoredWorkingMode(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		key := working.ResourceKey("r")
		if mode, ok, err := e.StoredWorkingMode(ctx, key); err != nil || ok || mode != "" {
			t.Fatalf("before any write: %q, %v, %v; want not stored", mode, ok, err)
		}
		mem, err := e.OpenWorkingMemory(working.Config{Template: "# Notes\n", Scope: working.ScopeResource})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Set(ctx, key, "# Notes\n- likes tea\n", working.Origin{}); err != nil {
			t.Fatal(err)
		}
		if mode, ok, err := e.StoredWorkingMode(ctx, key); err != nil || !ok || mode != working.ModeTemplate {
			t.Errorf("after a markdown write: %q, %v, %v; want %q", mode, ok, err, working.ModeTemplate)
		}
		if _, _, err := e.StoredWorkingMode(ctx, "no-scope"); err == nil {
			t.Error("a malformed key: nil error")
		}
		e.Close()
		if _, _, err := e.StoredWorkingMode(ctx, key); !errors.Is(err, engine.ErrClosed) {
			t.Errorf("after Close: %v, want ErrClosed", err)
		}
	})
}

// TestWorkingMemoryResources lists the resources with a state of their
// own, in byte order ("B" before "a", whatever Postgres's collation), a
// page at a time from after an id, without the threads' states; a limit
// out of range is a *ValidationError naming it.
func TestWorkingMemoryResources(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "a", Messages: []engine.Message{user("m1", "hi")}}); err != nil {
			t.Fatal(err)
		}
		res, err := e.OpenWorkingMemory(working.Config{Template: "# Notes\n", Scope: working.ScopeResource})
		if err != nil {
			t.Fatal(err)
		}
		th, err := e.OpenWorkingMemory(working.Config{Template: "# Notes\n", Scope: working.ScopeThread})
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{working.ResourceKey("c"), working.ResourceKey("a"), working.ResourceKey("B"), working.ThreadKey("t")} {
			mem := res
			if key == working.ThreadKey("t") {
				mem = th
			}
			if _, err := mem.Set(ctx, key, "# Notes\n- x\n", working.Origin{}); err != nil {
				t.Fatalf("set %s: %v", key, err)
			}
		}
		first, err := e.WorkingMemoryResources(ctx, "", 2)
		if err != nil || !slices.Equal(first, []string{"B", "a"}) {
			t.Fatalf("first page: %q, %v; want [B a]", first, err)
		}
		if rest, err := e.WorkingMemoryResources(ctx, "a", 2); err != nil || !slices.Equal(rest, []string{"c"}) {
			t.Errorf("after a: %q, %v; want [c]", rest, err)
		}
		for _, limit := range []int{0, engine.MaxPageLimit + 1} {
			var ve *engine.ValidationError
			if _, err := e.WorkingMemoryResources(ctx, "", limit); !errors.As(err, &ve) || ve.Field != "limit" || !errors.Is(err, engine.ErrInvalidInput) {
				t.Errorf("limit %d: %v, want a *ValidationError of limit", limit, err)
			}
		}
	})
}
