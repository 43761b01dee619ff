package importer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestJSONLResponsesItems imports an OpenAI Responses transcript, one
// item a line (testdata/chatapi/responses-items.jsonl): message items are
// messages; a function_call is a tool call of the assistant message of
// the line before (a message item, or the function_call before it), else
// an assistant message of its own; a function_call_output is a tool
// message answering call_id, named after the function that call called; a
// reasoning item skips its line naming its type. Before, every such line
// was skipped: `unknown field "type" (a record has thread, …)`.
func TestJSONLResponsesItems(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	rep, err := importer.Import(ctx, e, filepath.Join("testdata", "chatapi", "responses-items.jsonl"), importer.Options{Name: "ri"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("stored %d, skipped %d, unstored %d", rep.Messages, rep.Skipped, rep.Unstored), "stored 8, skipped 1, unstored 0"; got != want {
		t.Fatalf("%s (problems %v), want %s", got, rep.Problems, want)
	}
	if got, want := rep.Problems[0].Where+": "+rep.Problems[0].Reason(), `line 2: unknown item type "reasoning": mnemo reads OpenAI Responses items of type message, function_call and function_call_output, and stores no other`; got != want {
		t.Errorf("problem:\n got %s\nwant %s", got, want)
	}
	ms, err := e.Messages(ctx, "ri", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		s := fmt.Sprintf("%s %s %q", m.ID, m.Role, m.Content)
		for _, c := range m.ToolCalls {
			s += fmt.Sprintf(" %s:%s%s", c.ID, c.Name, c.Arguments)
		}
		if m.Role == engine.RoleTool {
			s += " " + m.ToolCallID + " " + m.Name
		}
		got = append(got, s)
	}
	want := []string{
		`ri1 user "What's the weather like in Paris and Bogotá today?"`,
		`fc_12345xyz assistant "" call_12345xyz:get_weather{"location":"Paris, France"} call_67890abc:get_weather{"location":"Bogotá, Colombia"}`,
		`ri5 tool "{\"temperature\": 14}" call_12345xyz get_weather`,
		`ri6 tool "{\"temperature\": 19}" call_67890abc get_weather`,
		`msg_67ccd3acc8d48190a77525dc6de64b4104becb25c8b8ec28 assistant "Paris is at 14 °C and Bogotá at 19 °C."`,
		`ri8 user "And Toronto?"`,
		`msg_2 assistant "Let me check." call_3:get_weather{"location":"Toronto, Canada"}`,
		`ri11 tool "{\"temperature\": 11}" call_3 get_weather`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Again: nothing new.
	rep, err = importer.Import(ctx, e, filepath.Join("testdata", "chatapi", "responses-items.jsonl"), importer.Options{Name: "ri"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 0 || rep.Duplicates != 8 {
		t.Fatalf("again: stored %d, duplicates %d; want 0, 8", rep.Messages, rep.Duplicates)
	}
}

// TestJSONLResponsesCallLines: a function_call's call names its lines
// when the engine refuses it, and joins no message of another thread.
func TestJSONLResponsesCallLines(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	data := strings.Join([]string{
		`{"thread":"a","resource":"r","type":"message","role":"assistant","content":"calling"}`,
		`{"thread":"a","resource":"r","type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`,
		`{"thread":"a","resource":"r","type":"function_call","call_id":"c1","name":"g","arguments":"{}"}`,
		`{"thread":"b","resource":"r","type":"function_call","call_id":"c2","name":"h","arguments":""}`,
	}, "\n")
	rep, err := importer.Import(ctx, e, writeFile(t, "x.jsonl", data), importer.Options{Name: "x", Format: importer.FormatJSONL})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 1 || rep.Skipped != 1 {
		t.Fatalf("stored %d, skipped %d (problems %v); want 1, 1", rep.Messages, rep.Skipped, rep.Problems)
	}
	if got, want := rep.Problems[0].Where+": "+rep.Problems[0].Reason(), `lines 1-3: invalid tool_calls[1].id: duplicate tool call id "c1"`; got != want {
		t.Errorf("problem:\n got %s\nwant %s", got, want)
	}
	b := messages(t, e, "b")
	if len(b) != 1 {
		t.Fatalf("thread b: %v", b)
	}
	for _, m := range b {
		if len(m.ToolCalls) != 1 || string(m.ToolCalls[0].Arguments) != "{}" || m.Content != "" {
			t.Fatalf("thread b: %+v, want one call with arguments {}", m)
		}
	}
}
