package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAppendUnpaired: Append's result names, in Unpaired, each of the
// request's tool messages that answers no call of the thread, by the
// pairing rule the context applies (it drops exactly those, reason
// orphan-tool-result), each message once (the same message given twice
// in a request is one: the server named it twice, rev57), on both
// backends. A result appended in a later request than its call is
// paired. Past engine.MaxPairLookups stored lookups the rest are counted
// in UnpairedUnchecked. Before, only mnemo serve said so: the library and
// mnemo ingest stored such a result without a word.
func TestAppendUnpaired(t *testing.T) {
	user := engine.Message{Role: engine.RoleUser, Content: "look it up"}
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: []byte(`{}`)}}}
	result := engine.Message{Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: "found"}
	stray := engine.Message{Role: engine.RoleTool, ToolCallID: "c9", Name: "lookup", Content: "stray"}
	sameStray := stray
	sameStray.ID = "stray-1"
	againStray := stray
	againStray.ID = "stray-2"
	type req = []engine.Message
	cases := []struct {
		name     string
		requests []req  // the thread's appends, in order
		want     string // the last append's Unpaired, as index:seq:id
	}{
		{"SameRequest", []req{{user, call, result}}, ""},
		{"LaterRequest", []req{{user, call}, {result}}, ""},
		{"LaterRequestAfterOthers", []req{{user, call}, {user}, {result}}, ""},
		{"NoSuchCall", []req{{user, call, result}, {stray}}, "0:4:c9 "},
		{"NoSuchCallInRequest", []req{{user, call, stray, result}}, "2:3:c9 "},
		{"FirstMessage", []req{{stray}}, "0:1:c9 "},
		{"AnsweredTwice", []req{{user, call, result}, {result}}, "0:4:c1 "},
		{"AnsweredTwiceInRequest", []req{{user, call, result, result}}, "3:4:c1 "},
		{"SameMessageTwice", []req{{user, sameStray, sameStray}}, "1:2:c9 "},
		{"SameMessageAgain", []req{{user, againStray}, {againStray}}, "0:2:c9 "},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		ctx := context.Background()
		e := b.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{}})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				thread := "t-" + strings.ToLower(c.name)
				var res *engine.AppendResult
				for _, msgs := range c.requests {
					var err error
					if res, err = e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r1", Messages: msgs}); err != nil {
						t.Fatal(err)
					}
				}
				got := ""
				for _, u := range res.Unpaired {
					got += fmt.Sprintf("%d:%d:%s ", u.Index, u.Seq, u.ToolCallID)
				}
				if got != c.want || res.UnpairedUnchecked != 0 {
					t.Fatalf("Unpaired %q, %d unchecked; want %q, 0", got, res.UnpairedUnchecked, c.want)
				}
				lc, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread, RecentN: 20})
				if err != nil {
					t.Fatal(err)
				}
				orphans := 0
				for _, d := range lc.MemCtx.Dropped {
					if d.Reason == journal.ReasonOrphanToolResult {
						orphans++
					}
				}
				if orphans != len(res.Unpaired) {
					t.Fatalf("the context dropped %d orphan results, the append named %d", orphans, len(res.Unpaired))
				}
			})
		}
		t.Run("Bounded", func(t *testing.T) {
			// Each stray's walk back leaves the request (seq 1 is stored
			// before it) undecided: each one asks the store.
			msgs := req{user}
			for i := range engine.MaxPairLookups + 4 {
				s := stray
				s.ToolCallID = fmt.Sprintf("s%d", i)
				msgs = append(msgs, s)
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-bounded", ResourceID: "r1", Messages: req{user}}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-bounded", Messages: msgs[1:]})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Unpaired) != engine.MaxPairLookups || res.UnpairedUnchecked != 4 {
				t.Fatalf("%d unpaired, %d unchecked; want %d and 4", len(res.Unpaired), res.UnpairedUnchecked, engine.MaxPairLookups)
			}
		})
	})
}

// TestAppendUnpairedWindow: in a thread longer than engine.UnpairedWindow,
// Append looks for a result's call among the window's messages before it
// only, on both backends: a result whose call is not there is counted in
// UnpairedUnchecked, not named (its call may be older), unless the window
// holds an earlier result for its id (then it answers no call: the context
// drops it too). Before (pair60), each lookup read every tool-calling
// message of the thread under the write lock, and a stray was named.
func TestAppendUnpairedWindow(t *testing.T) {
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: []byte(`{}`)}}}
	result := engine.Message{Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: "found"}
	stray := engine.Message{Role: engine.RoleTool, ToolCallID: "c9", Name: "lookup", Content: "stray"}
	user := func(n int) []engine.Message {
		out := make([]engine.Message, n)
		for i := range out {
			out[i] = engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("turn %d", i)}
		}
		return out
	}
	long := engine.UnpairedWindow + 8
	cat := func(parts ...[]engine.Message) []engine.Message { return slices.Concat(parts...) }
	one := func(m engine.Message) []engine.Message { return []engine.Message{m} }
	cases := []struct {
		name      string
		stored    []engine.Message // appended first
		last      engine.Message   // appended then, alone
		want      string           // its Unpaired, as index:seq:id
		unchecked int
	}{
		{"StrayPastWindow", user(long), stray, "", 1},
		{"CallPastWindow", cat(one(call), user(long)), result, "", 1},
		{"CallInWindow", cat(user(long), one(call), user(1)), result, "", 0},
		{"AnsweredInWindow", cat(user(long), one(call), one(result), user(1)), result, fmt.Sprintf("0:%d:c1 ", long+4), 0},
		{"StrayWindowReachesFirst", user(engine.UnpairedWindow - 2), stray, fmt.Sprintf("0:%d:c9 ", engine.UnpairedWindow-1), 0},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		ctx := context.Background()
		e := b.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{}})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				thread := "t-" + strings.ToLower(c.name)
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r1", Messages: c.stored}); err != nil {
					t.Fatal(err)
				}
				res, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, Messages: one(c.last)})
				if err != nil {
					t.Fatal(err)
				}
				got := ""
				for _, u := range res.Unpaired {
					got += fmt.Sprintf("%d:%d:%s ", u.Index, u.Seq, u.ToolCallID)
				}
				if got != c.want || res.UnpairedUnchecked != c.unchecked {
					t.Fatalf("Unpaired %q, %d unchecked; want %q, %d", got, res.UnpairedUnchecked, c.want, c.unchecked)
				}
				if c.unchecked > 0 {
					return // the context decides; the append said it did not
				}
				lc, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread, RecentN: 8})
				if err != nil {
					t.Fatal(err)
				}
				orphans := 0
				for _, d := range lc.MemCtx.Dropped {
					if d.Reason == journal.ReasonOrphanToolResult {
						orphans++
					}
				}
				if orphans != len(res.Unpaired) {
					t.Fatalf("the context dropped %d orphan results, the append named %d", orphans, len(res.Unpaired))
				}
			})
		}
	})
}

// TestAppendUnpairedAsCommitted: Unpaired answers for the thread as the
// append commits it, on both backends: an erasure committed right after
// (SetAfterAppendCommit: between the commit and the quota) does not
// change it. Before (pair60), the stored lookups ran once the append was
// committed: erasing the call there named a result that answered it when
// stored ("CallErased"), and erasing the first result of a call answered
// twice hid the second ("FirstResultErased").
func TestAppendUnpairedAsCommitted(t *testing.T) {
	user := engine.Message{Role: engine.RoleUser, Content: "look it up"}
	call := engine.Message{ID: "call-1", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: []byte(`{}`)}}}
	first := engine.Message{ID: "result-1", Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: "found"}
	second := engine.Message{ID: "result-2", Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: "found again"}
	cases := []struct {
		name   string
		stored []engine.Message // appended first
		erased string           // the message erased once the append of second committed
		want   int              // len(Unpaired) of that append
	}{
		{"CallErased", []engine.Message{user, call}, "call-1", 0},
		{"FirstResultErased", []engine.Message{user, call, first}, "result-1", 1},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		ctx := context.Background()
		e := b.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{}})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				thread := "t-" + strings.ToLower(c.name)
				stored := append([]engine.Message(nil), c.stored...)
				for i := range stored {
					if stored[i].ID != "" {
						stored[i].ID = thread + "-" + stored[i].ID
					}
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r1", Messages: stored}); err != nil {
					t.Fatal(err)
				}
				var eraseErr error
				engine.SetAfterAppendCommit(e, func() {
					engine.SetAfterAppendCommit(e, nil)
					_, eraseErr = e.DeleteMessages(ctx, thread+"-"+c.erased)
				})
				t.Cleanup(func() { engine.SetAfterAppendCommit(e, nil) })
				again := second
				again.ID = thread + "-" + again.ID
				res, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, Messages: []engine.Message{again}})
				if err != nil || eraseErr != nil {
					t.Fatalf("append: %v; erasure: %v", err, eraseErr)
				}
				if len(res.Unpaired) != c.want || res.UnpairedUnchecked != 0 {
					t.Fatalf("Unpaired %+v, %d unchecked; want %d named, as the thread stood at the commit", res.Unpaired, res.UnpairedUnchecked, c.want)
				}
			})
		}
	})
}
