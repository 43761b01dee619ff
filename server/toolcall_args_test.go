package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/server"
)

// argumentsRows are tool-call arguments as a client writes the member
// ("" when it leaves it out), with what every path stores for them
// ("=" for the member as written) or the rule it refuses them by.
var argumentsRows = []struct {
	name, member string
	stored       string
	rule         string // the error's rule, when refused
}{
	{"Absent", ``, `{}`, ""},
	{"Null", `null`, `{}`, ""},
	{"NullSpaced", " null ", `{}`, ""},
	{"Object", `{"q":"x"}`, "=", ""},
	{"EmptyObject", `{}`, "=", ""},
	// A string is the model's text (OpenAI's function.arguments): the
	// object it holds, {} for none, else the text as written.
	{"StringOfObject", `"{\"q\":\"x\"}"`, `{"q":"x"}`, ""},
	{"BOM", `"\ufeff{\"q\":\"x\"}"`, `{"q":"x"}`, ""},
	{"RawBOM", "\"\ufeff{\\\"q\\\":\\\"x\\\"}\"", `{"q":"x"}`, ""},
	{"ZeroWidth", `"\u200b\u2060{\"q\":\"x\"}\ufeff"`, `{"q":"x"}`, ""},
	{"UnicodeSpace", `"\u00a0\u3000{}\u0085"`, `{}`, ""},
	{"StringNull", `"null"`, `{}`, ""},
	{"StringEmpty", `""`, `{}`, ""},
	{"StringSpace", `"  "`, `{}`, ""},
	{"StringOfList", `"[1]"`, "=", ""},
	{"StringOfEmptyList", `"[]"`, "=", ""},
	{"StringOfNumber", `"1"`, "=", ""},
	{"StringOfString", `"\"x\""`, "=", ""},
	{"StringRepeatedKey", `"{\"a\":1,\"a\":2}"`, "=", ""},
	{"StringNotJSON", `"{\"q\":"`, "=", ""},
	{"Text", `"call it with q=x"`, "=", ""},
	{"TextWithBOM", `"\ufeffcall it with q=x"`, "=", ""},
	// An object escaping half a UTF-16 surrogate pair, which a body or a
	// record may not hold, is the model's text; a whole pair is the object.
	{"StringLoneSurrogate", `"{\"q\":\"\\ud800\"}"`, "=", ""},
	{"StringSurrogatePair", `"{\"q\":\"\\ud83d\\ude00\"}"`, `{"q":"\ud83d\ude00"}`, ""},
	// An object nested past engine.MaxArgumentsDepth in a string is the
	// model's text (it was a 400, "nested 65 levels deep"); one within
	// the bound is the object.
	{"StringDeepObject", `"` + strings.Repeat(`{\"a\":`, 65) + "1" + strings.Repeat("}", 65) + `"`, "=", ""},
	{"StringObject64Deep", `"` + strings.Repeat(`{\"a\":`, 64) + "1" + strings.Repeat("}", 64) + `"`, strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64), ""},
	// A value that is no object and no string is refused.
	{"List", `[1]`, "", "must be a JSON object (or a string holding a model's text that is not one), got a list"},
	{"EmptyList", `[]`, "", "must be a JSON object (or a string holding a model's text that is not one), got a list"},
	{"Number", `1`, "", "must be a JSON object (or a string holding a model's text that is not one), got a number"},
	{"True", `true`, "", "must be a JSON object (or a string holding a model's text that is not one), got true or false"},
	// An object nested past engine.MaxArgumentsDepth, named as each shape
	// names its arguments (ingest named tool_calls[0].arguments for
	// OpenAI's function.arguments and a Responses item's arguments).
	{"DeepObject", strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65), "", "nested 65 levels deep, at most 64"},
}

// TestToolCallArgumentsEveryPath: one input row through HTTP (POST
// .../messages on a loopback server), engine.Append and mnemo ingest's
// importer (mnemo's shape, OpenAI's "function" and a Responses
// function_call item) stores the same arguments or is refused by the
// same rule naming the member; a string row's text read by
// engine.ToolCallArguments is what is stored. Before, a member left out
// was refused over HTTP and by Append ("is required") but {} to ingest;
// "null", "" and "  " were model text over HTTP and {} to ingest; a
// string holding an object was refused over HTTP ("give the object
// itself") and the object to ingest; a string holding a list, a number, a
// quoted string, broken JSON or an object repeating a key was the
// model's text over HTTP and skipped the line in ingest.
func TestToolCallArgumentsEveryPath(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	ctx := context.Background()
	dir := t.TempDir()
	for i, c := range argumentsRows {
		t.Run(c.name, func(t *testing.T) {
			want := c.stored
			if want == "=" {
				want = strings.TrimSpace(c.member)
			}
			member := ""
			if c.member != "" {
				member = `,"arguments":` + c.member
			}
			var got []string // each path's stored arguments, or its refusal
			refused := func(path, field, rule string) string {
				return fmt.Sprintf("%s refused %s: %s", path, field, rule)
			}
			// HTTP.
			thread := fmt.Sprintf("h%d", i)
			body := `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f"` + member + `}]}]}`
			if r := h.do("POST", "/v1/threads/"+thread+"/messages", bobToken, body); r.status == 400 {
				pr := r.problem(t)
				got = append(got, refused("HTTP", pr.Field, strings.TrimPrefix(pr.Detail, "invalid "+pr.Field+": ")))
			} else if r.status != 200 {
				t.Fatalf("HTTP: status %d: %s", r.status, r.body)
			} else {
				got = append(got, "HTTP stored "+storedArguments(t, h.e, thread))
			}
			// Append.
			thread = fmt.Sprintf("a%d", i)
			var args json.RawMessage
			if c.member != "" {
				args = json.RawMessage(c.member)
			}
			_, err := h.e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "res-bob", Messages: []engine.Message{
				{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: args}}}}})
			var ve *engine.ValidationError
			switch {
			case errors.As(err, &ve):
				got = append(got, refused("Append", fmt.Sprintf("messages[%d].%s", ve.Index, ve.Field), ve.Rule))
			case err != nil:
				t.Fatal(err)
			default:
				got = append(got, "Append stored "+storedArguments(t, h.e, thread))
			}
			// mnemo ingest: mnemo's shape, OpenAI's, a Responses item.
			for j, line := range []string{
				`{"thread":"%s","resource":"res-bob","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"f"` + member + `}]}`,
				`{"thread":"%s","resource":"res-bob","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f"` + member + `}}]}`,
				`{"thread":"%s","resource":"res-bob","type":"function_call","call_id":"c1","name":"f"` + member + `}`,
			} {
				thread = fmt.Sprintf("i%d-%d", i, j)
				p := filepath.Join(dir, thread+".jsonl")
				if err := os.WriteFile(p, []byte(fmt.Sprintf(line, thread)+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				_, err := importer.Import(ctx, h.e, p, importer.Options{Format: importer.FormatJSONL, Strict: true})
				var re *importer.RecordError
				switch {
				case errors.As(err, &re) && errors.As(err, &ve):
					got = append(got, refused("ingest", re.Field, ve.Rule))
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, "ingest stored "+storedArguments(t, h.e, thread))
				}
			}
			wants := []string{"HTTP stored " + want, "Append stored " + want, "ingest stored " + want, "ingest stored " + want, "ingest stored " + want}
			if c.rule != "" {
				wants = []string{
					refused("HTTP", "messages[0].toolCalls[0].arguments", c.rule),
					refused("Append", "messages[0].toolCalls[0].arguments", c.rule),
					refused("ingest", "tool_calls[0].arguments", c.rule),
					refused("ingest", "tool_calls[0].function.arguments", c.rule),
					refused("ingest", "arguments", c.rule),
				}
			}
			for k := range wants {
				if got[k] != wants[k] {
					t.Errorf("%s:\n got %s\nwant %s", c.member, got[k], wants[k])
				}
			}
			// The text of a string row, as engine.ToolCallArguments reads it.
			var text string
			if json.Unmarshal([]byte(c.member), &text) == nil {
				if a := engine.ToolCallArguments(text); !sameJSON(a, json.RawMessage(want)) {
					t.Errorf("ToolCallArguments(%q) = %s, want %s", text, a, want)
				}
			}
		})
	}
}

// TestToolCallArgumentsRepeatedKey: an object repeating a key (not in a
// string) is refused on every path, each naming the key.
func TestToolCallArgumentsRepeatedKey(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const member = `{"a":1,"a":2}`
	r := h.do("POST", "/v1/threads/t/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":`+member+`}]}]}`)
	if pr := r.problem(t); r.status != 400 || !strings.Contains(pr.Detail, `"messages[0].toolCalls[0].arguments.a" is given twice`) {
		t.Errorf("HTTP: %d %+v", r.status, pr)
	}
	_, err := h.e.Append(context.Background(), engine.AppendRequest{ThreadID: "t", ResourceID: "res-bob", Messages: []engine.Message{
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(member)}}}}})
	if err == nil || !strings.Contains(err.Error(), `invalid messages[0].toolCalls[0].arguments: "a" is given twice`) {
		t.Errorf("Append: %v", err)
	}
	p := filepath.Join(t.TempDir(), "dup.jsonl")
	if err := os.WriteFile(p, []byte(`{"thread":"t","resource":"res-bob","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"f","arguments":`+member+`}]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), h.e, p, importer.Options{Strict: true}); err == nil || !strings.Contains(err.Error(), `"tool_calls[0].arguments.a" is given twice`) {
		t.Errorf("ingest: %v", err)
	}
}

// storedArguments returns the arguments of the one tool call of thread's
// first message.
func storedArguments(t *testing.T, e *engine.Engine, thread string) string {
	t.Helper()
	ms, err := e.Messages(context.Background(), thread, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return string(ms[0].ToolCalls[0].Arguments)
}

// sameJSON reports whether a and b are JSON of one value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// TestToolCallArgumentsResendAsRead: a message whose tool call's
// arguments are a model's text holding an object that escapes half a
// UTF-16 surrogate pair, re-sent as GET .../messages reads it back, is
// the same message (a duplicate, not a 400). Before, the text was stored
// as the object {"q":"\ud800"}, which a request body may not hold: the
// re-send was refused ("the body is not valid UTF-8").
func TestToolCallArgumentsResendAsRead(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const send = `{"resourceId":"res-bob","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":"{\"q\":\"\\ud800\"}"}]}]}`
	if r := h.do("POST", "/v1/threads/t/messages", bobToken, send); r.status != 200 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	r := h.do("GET", "/v1/threads/t/messages", bobToken, "")
	var read struct {
		Messages []struct {
			ToolCalls json.RawMessage `json:"toolCalls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.body, &read); err != nil || len(read.Messages) != 1 {
		t.Fatalf("GET: %d %s (%v)", r.status, r.body, err)
	}
	again := `{"messages":[{"id":"m1","role":"assistant","toolCalls":` + string(read.Messages[0].ToolCalls) + `}]}`
	r = h.do("POST", "/v1/threads/t/messages", bobToken, again)
	if r.status != 200 || !strings.Contains(string(r.body), `"duplicates":1`) {
		t.Errorf("re-sent as read (%s): %d %s", again, r.status, r.body)
	}
}
