package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// jsonTextCases are tool-call arguments and metadata holding what
// encoding/json's Marshal HTML-escapes ("<", ">", "&"), a \u escape of a
// plain letter, and a raw U+2028; stored is the tool_calls column Append
// writes for the call (id c, name f), openAI the function.arguments
// OpenAIMessages gives the model, same an equal value spelled otherwise
// (a re-send of it is a duplicate).
var jsonTextCases = []struct {
	name, args, stored, openAI, same string
	metadata                         map[string]any
	storedMetadata                   string
}{
	{name: "HTML", args: `{"q": "<b> & x"}`, stored: `[{"id":"c","name":"f","arguments":{"q":"<b> & x"}}]`, openAI: `{"q":"<b> & x"}`,
		same: `{"q":"\u003cb\u003e \u0026 x"}`, metadata: map[string]any{"tag": "<b> & x"}, storedMetadata: `{"tag":"<b> & x"}`},
	{name: "Escape", args: `{"q":"\u0078"}`, stored: `[{"id":"c","name":"f","arguments":{"q":"\u0078"}}]`, openAI: `{"q":"\u0078"}`,
		same: `{"q":"x"}`, metadata: map[string]any{"n": json.Number("10")}, storedMetadata: `{"n":10}`},
	{name: "LineSeparator", args: "{\"q\":\"a\u2028b\"}", stored: "[{\"id\":\"c\",\"name\":\"f\",\"arguments\":{\"q\":\"a\u2028b\"}}]", openAI: `{"q":"a\u2028b"}`,
		same: `{"q":"a\u2028b"}`, metadata: map[string]any{"s": "a\u2028b"}, storedMetadata: `{"s":"a\u2028b"}`},
	{name: "ModelText", args: `"<b> & x"`, stored: `[{"id":"c","name":"f","arguments":"<b> & x"}]`, openAI: `<b> & x`,
		same: `"\u003cb\u003e \u0026 x"`},
}

// TestJSONTextStoredAsGiven: a tool call's arguments and a message's
// metadata are stored as given (compact), "<", ">" and "&" kept, and the
// model reads the arguments so (OpenAIMessages); a re-send spelling a
// string otherwise is a duplicate, in another append and in the same one.
// Before, json.Marshal stored {"q":"\u003cb\u003e \u0026 x"}, and
// {"q":"x"} re-sent after {"q":"\u0078"} was ErrConflict.
func TestJSONTextStoredAsGiven(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, tc := range jsonTextCases {
			t.Run(tc.name, func(t *testing.T) {
				thread := "t-" + tc.name
				msg := func(args string) engine.Message {
					return engine.Message{ID: "m-" + tc.name, Role: engine.RoleAssistant, Metadata: tc.metadata,
						ToolCalls: []engine.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(args)}}}
				}
				appendMessage(t, e, thread, msg(tc.args))
				calls, meta := storedJSON(t, e, "m-"+tc.name)
				if calls != tc.stored {
					t.Errorf("stored tool_calls %s, want %s", calls, tc.stored)
				}
				if want := tc.storedMetadata; want != "" && meta != want {
					t.Errorf("stored metadata %s, want %s", meta, want)
				}
				appendMessage(t, e, thread, engine.Message{Role: engine.RoleTool, ToolCallID: "c", Name: "f", Content: "done"})
				c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread})
				if err != nil {
					t.Fatal(err)
				}
				om := c.OpenAIMessages("")
				if len(om) != 2 || len(om[0].ToolCalls) != 1 {
					t.Fatalf("OpenAIMessages: %+v, want the call and its result", om)
				}
				if got := om[0].ToolCalls[0].Function.Arguments; got != tc.openAI {
					t.Errorf("OpenAIMessages arguments %s, want %s", got, tc.openAI)
				}
				res := appendMessage(t, e, thread, msg(tc.same))
				if res.Duplicates != 1 {
					t.Errorf("re-sent as %s: %+v, want a duplicate", tc.same, res)
				}
				// Two in one request: the second repeats the first.
				_, err = e.Append(ctx, engine.AppendRequest{ThreadID: thread + "-batch", ResourceID: "r", Messages: []engine.Message{
					withID(msg(tc.args), "b-"+tc.name), withID(msg(tc.same), "b-"+tc.name)}})
				if err != nil {
					t.Errorf("repeated in one request as %s: %v", tc.same, err)
				}
			})
		}
	})
}

// TestJSONTextResendConflict: a re-send with another value is still a
// conflict: another string, another number spelling (digit for digit), the
// members in another order.
func TestJSONTextResendConflict(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		e := be.MustOpen(t, engine.Config{})
		call := func(args string) engine.Message {
			return engine.Message{ID: "m", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(args)}}}
		}
		appendMessage(t, e, "t", call(`{"a":"<","b":1}`))
		for _, other := range []string{`{"a":">","b":1}`, `{"a":"<","b":1.0}`, `{"b":1,"a":"<"}`, `"{\"a\":\"<\",\"b\":1"`} {
			_, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{call(other)}})
			if !errors.Is(err, engine.ErrConflict) {
				t.Errorf("re-sent as %s: %v, want ErrConflict", other, err)
			}
		}
	})
}

// TestJSONTextLegacyResend: a message stored before this release, its tool
// calls and metadata HTML-escaped by json.Marshal (or, before
// ToolCallArgumentsOf, arguments "", "  " or "null" kept as that string),
// written here straight into the store with the digest of that text, is a
// duplicate when the client sends it again as it first did. Before, the
// digest of the text now stored differed: ErrConflict.
func TestJSONTextLegacyResend(t *testing.T) {
	legacy := []struct {
		name, args, storedArgs, storedMetadata string
		metadata                               map[string]any
	}{
		{name: "HTML", args: `{"q":"<b> & x"}`, storedArgs: `{"q":"\u003cb\u003e \u0026 x"}`,
			metadata: map[string]any{"tag": "<b>"}, storedMetadata: `{"tag":"\u003cb\u003e"}`},
		{name: "ModelText", args: `"a < b"`, storedArgs: `"a \u003c b"`},
		{name: "EmptyString", args: `""`, storedArgs: `""`},
		{name: "SpaceString", args: `"  "`, storedArgs: `"  "`},
		{name: "NullString", args: `"null"`, storedArgs: `"null"`},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, tc := range legacy {
			t.Run(tc.name, func(t *testing.T) {
				m := engine.Message{ID: "m-" + tc.name, Role: engine.RoleAssistant, Content: "calling", Metadata: tc.metadata,
					ToolCalls: []engine.ToolCall{{ID: "c-" + tc.name, Name: "f", Arguments: json.RawMessage(tc.args)}}}
				appendMessage(t, e, "t", m)
				// Its own call id: the calls stay unanswered in one thread
				// (a call id is made again only once answered, ErrCallOpen).
				calls := fmt.Sprintf(`[{"id":"c-%s","name":"f","arguments":%s}]`, tc.name, tc.storedArgs)
				meta := tc.storedMetadata
				if meta == "" {
					meta = "{}"
				}
				digest := msgstore.Digest(engine.RoleAssistant, "calling", "", "", []byte(calls))
				// Indexed first: the drainer stores no vector for a row whose
				// text changed after it read it.
				if err := e.SyncIndexes(ctx); err != nil {
					t.Fatal(err)
				}
				nowCalls, nowMeta := storedJSON(t, e, m.ID)
				conn := engine.ConnOf(e)
				if _, err := conn.ExecContext(ctx, `UPDATE messages SET tool_calls = ?, metadata = ?, digest = ? WHERE id = ?`,
					calls, meta, digest, m.ID); err != nil {
					t.Fatal(err)
				}
				// The thread's byte counter, as the older append counted the row.
				if _, err := conn.ExecContext(ctx, `UPDATE threads SET bytes = bytes + ? WHERE id = 't'`,
					len(calls)+len(meta)-len(nowCalls)-len(nowMeta)); err != nil {
					t.Fatal(err)
				}
				res := appendMessage(t, e, "t", m)
				if res.Duplicates != 1 {
					t.Errorf("re-sent: %+v, want a duplicate", res)
				}
			})
		}
	})
}

// TestJSONTextIndexed: a tool call's arguments are indexed as stored, so
// a word between angle brackets is found by a lexical search. Before, the
// indexer re-encoded the calls with json.Marshal, and the index held
// "\u003clighthouse\u003e", one word "u003clighthouse" to the analyzer.
func TestJSONTextIndexed(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		appendMessage(t, e, "t", engine.Message{ID: "m", Role: engine.RoleAssistant,
			ToolCalls: []engine.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{"q":"<lighthouse>&keeper"}`)}}})
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"lighthouse", "keeper"} {
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: q, Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
			if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != "m" {
				t.Errorf("lexical search %q: %+v, %v; want message m", q, res, err)
			}
		}
	})
}

// appendMessage appends m to thread (resource r) and returns the result.
func appendMessage(t *testing.T, e *engine.Engine, thread string, m engine.Message) *engine.AppendResult {
	t.Helper()
	res, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{m}})
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return res
}

func withID(m engine.Message, id string) engine.Message {
	m.ID = id
	return m
}

// storedJSON returns message id's tool_calls and metadata columns.
func storedJSON(t *testing.T, e *engine.Engine, id string) (calls, metadata string) {
	t.Helper()
	if err := engine.ConnOf(e).QueryRowContext(context.Background(), `SELECT tool_calls, metadata FROM messages WHERE id = ?`, id).Scan(&calls, &metadata); err != nil {
		t.Fatal(err)
	}
	return calls, metadata
}
