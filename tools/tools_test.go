package tools_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const profileSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "The user's name"},
    "city": {"type": "string"},
    "todo": {"type": "array", "items": {"type": "string"}},
    "home": {"$ref": "#/$defs/place"}
  },
  "required": ["name"],
  "additionalProperties": false,
  "$defs": {"place": {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string"}}, "required": ["street"]}}
}`

type env struct {
	b    backend
	path string
	db   *sql.DB
	j    *journal.Journal
}

// newEnv opens a new, empty database of b.
func (b backend) newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{b: b, path: b.Place(t)}
	e.open(t)
	return e
}

// open (re)opens the database: a simulated restart when called again.
func (e *env) open(t *testing.T) {
	t.Helper()
	db, err := e.b.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.CloseDB(db) }) // waits for background prepares (storetest.Backend.OpenDB)
	e.db, e.j = db, journal.New(db, nil)
}

func (e *env) registry(t *testing.T, cfg working.Config, key string) (*tools.Registry, *working.Memory) {
	t.Helper()
	mem, err := working.New(e.db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(e.j, tools.Owner{})
	tool, err := tools.UpdateWorkingMemory(mem, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(tool); err != nil {
		t.Fatal(err)
	}
	return reg, mem
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file (go test ./tools -update rewrites it after review):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func marshalIndent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestDefinitionsGolden pins the tool names, descriptions and parameters as
// the model sees them on the wire.
func TestDefinitionsGolden(t *testing.T) { forEachBackend(t, testDefinitionsGolden) }

func testDefinitionsGolden(t *testing.T, b backend) {
	e := b.newEnv(t)
	t.Run("Schema", func(t *testing.T) {
		reg, _ := e.registry(t, working.Config{Schema: json.RawMessage(profileSchema)}, working.ThreadKey("t"))
		defs := reg.Definitions()
		golden(t, "update_working_memory_schema.json", marshalIndent(t, defs))
		params := string(defs[0].Function.Parameters.(json.RawMessage))
		for _, bad := range []string{"$ref", "$defs", "required"} {
			if strings.Contains(params, bad) {
				t.Fatalf("parameters hold %q: %s", bad, params)
			}
		}
	})
	t.Run("Template", func(t *testing.T) {
		reg, _ := e.registry(t, working.Config{Template: "# Notes\n"}, working.ThreadKey("t"))
		golden(t, "update_working_memory_template.json", marshalIndent(t, reg.Definitions()))
	})
	if got, want := tools.UpdateWorkingMemoryName, "updateWorkingMemory"; got != want {
		t.Fatalf("name=%q, want %q", got, want)
	}
}

func call(id, args string) openai.ToolCall {
	return openaitest.ToolCall(id, tools.UpdateWorkingMemoryName, args)
}

type toolResult struct {
	OK      bool   `json:"ok"`
	Version *int64 `json:"version"`
	Changed *bool  `json:"changed"`
	Error   string `json:"error"`
}

func handle(t *testing.T, reg *tools.Registry, runID string, c openai.ToolCall) (openai.ChatCompletionMessage, toolResult) {
	t.Helper()
	msg, err := reg.Handle(context.Background(), runID, c)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Role != openai.ChatMessageRoleTool || msg.ToolCallID != c.ID || msg.Name != c.Function.Name {
		t.Fatalf("message=%+v", msg)
	}
	var r toolResult
	if err := json.Unmarshal([]byte(msg.Content), &r); err != nil {
		t.Fatalf("result %q is not JSON: %v", msg.Content, err)
	}
	return msg, r
}

func TestHandleSchema(t *testing.T) { forEachBackend(t, testHandleSchema) }

func testHandleSchema(t *testing.T, b backend) {
	e := b.newEnv(t)
	key := working.ThreadKey("t")
	reg, mem := e.registry(t, working.Config{Schema: json.RawMessage(profileSchema)}, key)
	ctx := context.Background()

	_, r := handle(t, reg, "run-1", call("c1", `{"name":"Ana","city":"Lyon","todo":["book train"]}`))
	if !r.OK || r.Version == nil || *r.Version != 1 {
		t.Fatalf("result=%+v", r)
	}
	_, r = handle(t, reg, "run-1", call("c2", `{"city":"Porto","home":{"zip":"4000"}}`))
	if !r.OK || *r.Version != 2 {
		t.Fatalf("result=%+v", r)
	}
	st, _ := mem.Get(ctx, key)
	if got, want := st.Content, `{"city":"Porto","home":{"zip":"4000"},"name":"Ana","todo":["book train"]}`; got != want {
		t.Fatalf("state=%s, want %s", got, want)
	}
	_, r = handle(t, reg, "run-1", call("c3", `{}`))
	if !r.OK || *r.Version != 2 || r.Changed == nil || *r.Changed {
		t.Fatalf("empty update result=%+v, want ok, version 2, changed false", r)
	}

	for _, tc := range []struct {
		name, args, want string
	}{
		{"ErrSchemaViolation", `{"city":5}`, "at /city: got number, want string"},
		{"ErrUnknownField", `{"age":41}`, "age"},
		{"ErrNotJSON", `{"city":"Lyon"`, "not valid JSON"},
		{"ErrNotObject", `["Lyon"]`, "must be a JSON object"},
		{"ErrNestedType", `{"home":{"street":7}}`, "/home/street"},
		// A key given twice was read as its last value (city Porto).
		{"ErrRepeatedKey", `{"city":"Lyon","city":"Porto"}`, `"city" is given twice in one object`},
		{"ErrRepeatedNestedKey", `{"home":{"street":"a","street":"b"}}`, `"home.street" is given twice`},
		// The offset is the arguments' as sent, leading whitespace
		// included (they were trimmed first: this said byte 15).
		{"ErrTrailingAfterSpaces", "\n  " + `{"city":"Lyon"}}`, "unexpected data after the JSON value at byte 18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := handle(t, reg, "run-1", call("bad-"+tc.name, tc.args))
			if r.OK || !strings.Contains(r.Error, tc.want) || !strings.Contains(r.Error, "not changed") {
				t.Fatalf("result=%+v, want a refusal containing %q", r, tc.want)
			}
			if got, _ := mem.Get(ctx, key); got.Content != st.Content || got.Version != 2 {
				t.Fatalf("state changed to %s v%d", got.Content, got.Version)
			}
		})
	}
}

func TestHandleTemplate(t *testing.T) { forEachBackend(t, testHandleTemplate) }

func testHandleTemplate(t *testing.T, b backend) {
	e := b.newEnv(t)
	key := working.ResourceKey("u")
	reg, mem := e.registry(t, working.Config{Template: "# User\n- Name:\n- City:\n", Scope: working.ScopeResource}, key)
	ctx := context.Background()
	_, r := handle(t, reg, "run", call("c1", `{"search":"- City:","replace":"- City: Lyon"}`))
	if !r.OK || *r.Version != 1 {
		t.Fatalf("result=%+v", r)
	}
	_, r = handle(t, reg, "run", call("c2", `{"memory":"# User\nAna, Lyon\n"}`))
	if !r.OK || *r.Version != 2 {
		t.Fatalf("result=%+v", r)
	}
	if st, _ := mem.Get(ctx, key); st.Content != "# User\nAna, Lyon\n" {
		t.Fatalf("state=%q", st.Content)
	}
	for _, tc := range []struct{ name, args, want string }{
		{"ErrNotFound", `{"search":"Porto","replace":"x"}`, "does not occur"},
		{"ErrNotUnique", `{"search":"n","replace":"x"}`, "occurs 2 times"},
		{"ErrBoth", `{"memory":"x","search":"a","replace":"b"}`, "not both"},
		{"ErrSearchOnly", `{"search":"Ana"}`, "search needs replace"},
		{"ErrNothing", `{}`, "send memory"},
		{"ErrEmpty", ``, "empty"},
		{"ErrType", `{"memory":5}`, `"memory" must be a string`},
		{"ErrUnknown", `{"doc":"x"}`, "unknown field"},
		{"ErrNotJSON", `{"memory":`, "not a valid JSON object"},
		{"ErrTrailing", `{"memory":"x"} {"memory":"y"}`, "not one JSON object: unexpected data after the JSON value at byte 15"},
		{"ErrTrailingBrace", `{"memory":"x"}}`, "not one JSON object: unexpected data after the JSON value at byte 14"},
		{"ErrTrailingBracket", `{"memory":"x"}]`, "not one JSON object: unexpected data after the JSON value at byte 14"},
		// The offset is the arguments' as sent: they were trimmed first,
		// and this said byte 14.
		{"ErrTrailingAfterSpaces", "  \n" + `{"memory":"x"}}`, "not one JSON object: unexpected data after the JSON value at byte 17"},
		{"ErrSpaces", " \n\t", "the arguments are empty"},
		// A key given twice was read as its last value.
		{"ErrRepeatedKey", `{"memory":"x","memory":"y"}`, `the arguments give "memory" twice in one object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := handle(t, reg, "run", call("bad-"+tc.name, tc.args))
			if r.OK || !strings.Contains(r.Error, tc.want) {
				t.Fatalf("result=%+v, want a refusal containing %q", r, tc.want)
			}
			if st, _ := mem.Get(ctx, key); st.Version != 2 {
				t.Fatalf("state changed to v%d", st.Version)
			}
		})
	}
}

// TestHandleDurableAcrossRestart: a resumed run that handles the same tool
// call again after the database was reopened gets the same result byte for
// byte and applies nothing twice — also for a refused call, whose refusal
// must not turn into an application on resume.
func TestHandleDurableAcrossRestart(t *testing.T) { forEachBackend(t, testHandleDurableAcrossRestart) }

func testHandleDurableAcrossRestart(t *testing.T, b backend) {
	e := b.newEnv(t)
	key := working.ThreadKey("t")
	cfg := working.Config{Schema: json.RawMessage(profileSchema)}
	reg, _ := e.registry(t, cfg, key)
	m1, _ := handle(t, reg, "run-9", call("c1", `{"todo":["a"]}`))
	bad, _ := handle(t, reg, "run-9", call("c2", `{"todo":"not a list"}`))
	m3, _ := handle(t, reg, "run-9", call("c3", `{"todo":["a","b"]}`))

	store.CloseDB(e.db) // as the engine closes its pool
	e.open(t)
	reg, mem := e.registry(t, cfg, key)
	for _, tc := range []struct {
		c    openai.ToolCall
		want string
	}{
		{call("c1", `{"todo":["a"]}`), m1.Content},
		{call("c2", `{"todo":"not a list"}`), bad.Content},
		{call("c3", `{"todo":["a","b"]}`), m3.Content},
	} {
		got, _ := handle(t, reg, "run-9", tc.c)
		if got.Content != tc.want {
			t.Fatalf("%s after restart: %q, want %q", tc.c.ID, got.Content, tc.want)
		}
	}
	st, _ := mem.Get(context.Background(), key)
	if st.Version != 2 || st.Content != `{"todo":["a","b"]}` {
		t.Fatalf("state=%s v%d, want todo [a b] at v2: something was applied twice", st.Content, st.Version)
	}
	// The same call id in another run is another call.
	_, r := handle(t, reg, "run-10", call("c1", `{"todo":["z"]}`))
	if !r.OK || *r.Version != 3 {
		t.Fatalf("other run: %+v", r)
	}
}

// TestHandleCrashBetweenApplyAndRecord: when the state was written but the
// journal record was lost (a crash in between), handling the call again
// finds the version the call wrote and gives the result a first run would
// have given.
func TestHandleCrashBetweenApplyAndRecord(t *testing.T) {
	forEachBackend(t, testHandleCrashBetweenApplyAndRecord)
}

func testHandleCrashBetweenApplyAndRecord(t *testing.T, b backend) {
	e := b.newEnv(t)
	key := working.ThreadKey("t")
	cfg := working.Config{Schema: json.RawMessage(profileSchema)}
	reg, mem := e.registry(t, cfg, key)
	want, _ := handle(t, reg, "run-1", call("c1", `{"city":"Lyon"}`))
	// The record of run-1's call, as journal.ToolKey keys it: the lost record.
	if n, err := e.j.Forget(context.Background(), journal.ScopeTool, `["run-1",`); err != nil || n != 1 {
		t.Fatalf("Forget of run-1's application = %d, %v; want 1 record deleted", n, err)
	}
	if _, err := mem.Merge(context.Background(), key, map[string]any{"city": "Porto"}, working.Origin{}); err != nil {
		t.Fatal(err)
	}
	got, _ := handle(t, reg, "run-1", call("c1", `{"city":"Lyon"}`))
	if got.Content != want.Content {
		t.Fatalf("result=%q, want %q", got.Content, want.Content)
	}
	if st, _ := mem.Get(context.Background(), key); st.Content != `{"city":"Porto"}` || st.Version != 2 {
		t.Fatalf("state=%s v%d: the call was applied again over a newer state", st.Content, st.Version)
	}
}

type panicky struct{}

func (panicky) Definition() openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "boom"}}
}
func (panicky) Run(context.Context, tools.Call) (string, error) { panic("bug") }

func TestRegistry(t *testing.T) { forEachBackend(t, testRegistry) }

func testRegistry(t *testing.T, b backend) {
	e := b.newEnv(t)
	key := working.ThreadKey("t")
	reg, mem := e.registry(t, working.Config{Schema: json.RawMessage(profileSchema)}, key)
	t.Run("ErrDuplicateTool", func(t *testing.T) {
		tool, _ := tools.UpdateWorkingMemory(mem, key)
		if err := reg.Register(tool); !errors.Is(err, tools.ErrDuplicateTool) {
			t.Fatalf("err=%v, want ErrDuplicateTool", err)
		}
	})
	t.Run("ErrInvalidTool", func(t *testing.T) {
		if err := reg.Register(nil); !errors.Is(err, tools.ErrInvalidTool) {
			t.Fatalf("err=%v, want ErrInvalidTool", err)
		}
	})
	t.Run("UnknownTool", func(t *testing.T) {
		msg, err := reg.Handle(context.Background(), "r", openaitest.ToolCall("x1", "deleteEverything", `{}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg.Content, `unknown tool \"deleteEverything\"`) || !strings.Contains(msg.Content, "updateWorkingMemory") {
			t.Fatalf("content=%s", msg.Content)
		}
	})
	t.Run("ErrNoCallID", func(t *testing.T) {
		if _, err := reg.Handle(context.Background(), "r", call("", `{}`)); !errors.Is(err, tools.ErrNoCallID) {
			t.Fatalf("err=%v, want ErrNoCallID", err)
		}
	})
	t.Run("PanicRecovered", func(t *testing.T) {
		if err := reg.Register(panicky{}); err != nil {
			t.Fatal(err)
		}
		_, err := reg.Handle(context.Background(), "r", openaitest.ToolCall("p1", "boom", `{}`))
		if err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Fatalf("err=%v, want a recovered panic", err)
		}
		if _, err := e.j.Recorded(context.Background(), journal.ScopeTool, "r:p1"); !errors.Is(err, journal.ErrNotFound) {
			t.Fatalf("a failed call was recorded: %v", err)
		}
		if got, want := reg.Names(), []string{"updateWorkingMemory", "boom"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("names=%v, want %v", got, want)
		}
	})
	t.Run("ReadOnly", func(t *testing.T) {
		ro, err := working.New(e.db, working.Config{Schema: json.RawMessage(profileSchema), ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tools.UpdateWorkingMemory(ro, key); !errors.Is(err, tools.ErrReadOnly) {
			t.Fatalf("err=%v, want ErrReadOnly", err)
		}
		if defs := tools.NewRegistry(e.j, tools.Owner{}).Definitions(); defs != nil {
			t.Fatalf("empty registry offers %v", defs)
		}
	})
}

// FuzzHandleArguments: whatever the model sends as arguments, Handle neither
// panics nor fails; it answers with a JSON result.
func FuzzHandleArguments(f *testing.F) {
	for _, s := range []string{`{"city":"Lyon"}`, `{"todo":null}`, `{}`, ``, `null`, `[`, `{"home":{"zip":1}}`,
		`{"memory":"x"}`, `{"search":"a","replace":"b"}`, "\x00", `{"name":"\ud800"}`,
		`{"city":"Lyon"}}`, `{"memory":"x"}]`, `{"city":"Lyon"} {}`} {
		f.Add(s, false)
		f.Add(s, true)
	}
	e := &env{path: filepath.Join(f.TempDir(), "mnemo.db")}
	db, err := store.Open(context.Background(), e.path)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	j := journal.New(db, nil)
	regs := map[bool]*tools.Registry{}
	for tmpl, cfg := range map[bool]working.Config{
		false: {Schema: json.RawMessage(profileSchema)},
		true:  {Template: "# Notes\n", Scope: working.ScopeResource},
	} {
		mem, err := working.New(db, cfg)
		if err != nil {
			f.Fatal(err)
		}
		key, _ := mem.Key("t", "u")
		tool, err := tools.UpdateWorkingMemory(mem, key)
		if err != nil {
			f.Fatal(err)
		}
		regs[tmpl] = tools.NewRegistry(j, tools.Owner{})
		regs[tmpl].Register(tool)
	}
	n := 0
	f.Fuzz(func(t *testing.T, args string, tmpl bool) {
		n++
		msg, err := regs[tmpl].Handle(context.Background(), "fuzz", call(fmt.Sprintf("c%d", n), args))
		if err != nil {
			t.Fatalf("args %q: %v", args, err)
		}
		if !json.Valid([]byte(msg.Content)) {
			t.Fatalf("args %q: result %q is not JSON", args, msg.Content)
		}
		var res struct{ OK bool }
		if json.Unmarshal([]byte(msg.Content), &res) == nil && res.OK && strings.TrimSpace(args) != "" && !json.Valid([]byte(args)) { // none: {}
			t.Fatalf("args %q are not JSON, and were applied: %s", args, msg.Content)
		}
	})
}
