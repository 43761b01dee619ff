package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// FuzzAppendToolCall feeds arbitrary tool-call names, arguments and results
// to Append and LoadContext: a request is either refused with a
// *ValidationError and stores nothing, or stored so that the context offers
// the call with valid-JSON, valid-UTF-8 arguments that give no key twice,
// immediately followed by its result (the provider rule). Seeds: testdata/toolargs/*.json.
//
//	go test ./engine -run '^$' -fuzz FuzzAppendToolCall -fuzztime 3m
func FuzzAppendToolCall(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/toolargs/*.json")
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/toolargs")
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("lookup", b, "result")
	}
	f.Add("", []byte(`{}`), "")
	f.Add("bad name!", []byte(`{"a":1}`), "x\x00y")
	f.Add("f", []byte("{\"a\":\"\xff\"}"), "ok")
	f.Add("f", []byte(`{"a":1} trailing`), "ok")
	f.Add("f", []byte(`{"a":{"b":1,"b":2}}`), "ok")
	f.Add("f", []byte(`"{\"a\":1}"`), "ok")
	f.Add("f", []byte(`"{\"a\":1,\"a\":2}"`), "ok")
	ctx := context.Background()
	// One engine per available backend (the conformance suite's rows);
	// every input runs on each.
	var engines []*engine.Engine
	var names []string
	for _, be := range enginetest.Available() {
		engines = append(engines, be.MustOpen(f, engine.Config{}))
		names = append(names, be.Name)
	}
	n := 0
	f.Fuzz(func(t *testing.T, name string, args []byte, result string) {
		n++
		for i, e := range engines {
			t.Logf("backend %s", names[i])
			appendToolCall(t, ctx, e, fmt.Sprintf("t%d", n), name, args, result)
		}
	})
}

// appendToolCall is one input of FuzzAppendToolCall on e.
func appendToolCall(t *testing.T, ctx context.Context, e *engine.Engine, thread, name string, args []byte, result string) {
	t.Helper()
	req := engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "please call"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: name, Arguments: json.RawMessage(args)}}},
		{Role: engine.RoleTool, ToolCallID: "c1", Content: result},
	}}
	_, err := e.Append(ctx, req)
	if err != nil {
		var ve *engine.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("Append error %v is not a ValidationError", err)
		}
		if _, gerr := e.GetThread(ctx, thread); !errors.Is(gerr, engine.ErrThreadNotFound) {
			t.Fatalf("a refused append created the thread (%v)", gerr)
		}
		return
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-" + thread, ThreadID: thread, RecentN: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 3 {
		t.Fatalf("context has %d messages, want 3", len(c.Messages))
	}
	call, res := c.Messages[1], c.Messages[2]
	if len(call.ToolCalls) != 1 || res.ToolCallID != call.ToolCalls[0].ID {
		t.Fatalf("pairing broken: %+v / %+v", call, res)
	}
	a := call.ToolCalls[0].Arguments
	if !json.Valid(a) || !utf8.Valid(a) {
		t.Fatalf("stored arguments are not clean JSON: %q", a)
	}
	if path, _, repeated := jsonkey.Repeated(a); repeated {
		t.Fatalf("stored arguments give %q twice: %s", path, a)
	}
	if msgs := c.OpenAIMessages("sys"); len(msgs) != 4 {
		t.Fatalf("OpenAI messages %d, want 4", len(msgs))
	}
}
