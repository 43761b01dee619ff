package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
)

// This file tests parseJSONL, the JSONL line parser, without an engine:
// what Import stores of a line and why it skips one (the engine's own
// checks aside). FuzzParseJSONL ran 601,734 lines in 60 s where
// FuzzImportJSONL, an import into an engine per input, ran 8: the fuzzer
// minimizes each new input for up to -fuzzminimizetime (60 s), uncounted,
// which for an engine per input took the whole minute (with
// -fuzzminimizetime 100x, about 1,200 imports a second against 3,400
// lines; load 7-12 on 2 cores).

// TestParseContent: a content given as a list of parts is stored as its
// text, and a part mnemo cannot read skips its line naming the part.
// Before, every list was `"content" must be a string, got a list`.
func TestParseContent(t *testing.T) {
	for _, c := range []struct {
		name, role, content string
		want                string // the content stored, or the reason the line is skipped
		unstored            string
	}{
		{"OK", "user", `[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"input_text","text":"b"}]`, "a\nb", ""},
		{"OKAssistantConcatenated", "assistant", `[{"type":"output_text","text":"a "},{"type":"text","text":"b","citations":[{"type":"char_location"}]}]`, "a b", "content[].citations"},
		{"OKRefusalKept", "assistant", `[{"type":"refusal","refusal":"no"}]`, "no", ""},
		{"OKRefusalBesideText", "assistant", `[{"type":"text","text":"yes"},{"type":"refusal","refusal":"no"}]`, "yes", "content[].refusal"},
		{"OKUnstoredOnce", "user", `[{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"image_url","image_url":{"url":"v"}}]`, "a", "content[].image_url"},
		{"OKEmptyAnnotations", "assistant", `[{"type":"output_text","text":"a","annotations":[],"logprobs":null}]`, "a", ""},
		{"ErrNotAList", "user", `{"type":"text","text":"a"}`, `"content" must be a string or a list of parts, got an object`, ""},
		{"ErrNumber", "user", `12`, `"content" must be a string or a list of parts, got a number`, ""},
		{"ErrPartNotObject", "user", `["a"]`, `content[0] must be an object, a part such as {"type": "text", "text": "…"}, got a string`, ""},
		{"ErrPartNull", "user", `[null]`, `content[0] must be an object, a part such as {"type": "text", "text": "…"}, got null`, ""},
		{"ErrNoType", "user", `[{"text":"a"}]`, `content[0]: "type" is required`, ""},
		// Beside a "function_call", an empty content says where the call
		// went; it was the engine's "an assistant message needs content or
		// tool calls", or "an empty list" (review17).
		{"ErrEmptyListFunctionCall", "assistant", `[],"function_call":{"name":"f","arguments":"{}"}`, `"content" is empty: the line has only a "function_call" (OpenAI's deprecated function calling), which mnemo does not store; give the call as "tool_calls"`, ""},
		{"ErrEmptyFunctionCall", "assistant", `"","function_call":{"name":"f","arguments":"{}"}`, `"content" is empty: the line has only a "function_call" (OpenAI's deprecated function calling), which mnemo does not store; give the call as "tool_calls"`, ""},
		{"OKFunctionCallBesideText", "assistant", `"a","function_call":{"name":"f","arguments":"{}"}`, "a", "function_call"},
		// encoding/json matched "Transcript" to the field transcript: the
		// audio's transcript was stored as the content (review17).
		{"ErrAudioTranscriptCase", "assistant", `null,"audio":{"id":"a","Transcript":"spoken"}`, `unknown field "audio.Transcript" (did you mean "transcript"? names are case-sensitive)`, ""},
		{"OKAudioTranscript", "assistant", `null,"audio":{"id":"a","data":"AAA","expires_at":1,"transcript":"spoken"}`, "spoken", "audio"},
		// It was `"type" is required` (review17).
		{"ErrTypeMemberCase", "user", `[{"Type":"text","text":"a"}]`, `content[0]: unknown field "Type" (did you mean "type"? names are case-sensitive)`, ""},
		{"ErrTypeNumber", "user", `[{"type":1,"text":"a"}]`, `content[0].type must be a string, got a number`, ""},
		{"ErrTypeMisspelt", "user", `[{"type":"txt","text":"a"}]`, `content[0]: unknown part type "txt" (did you mean "text"?)`, ""},
		{"ErrTypeCase", "user", `[{"type":"Text","text":"a"}]`, `content[0]: unknown part type "Text" (did you mean "text"? types are case-sensitive)`, ""},
		{"ErrNoText", "user", `[{"type":"text"}]`, `content[0]: "text" is required in a "text" part`, ""},
		{"ErrTextNull", "user", `[{"type":"text","text":null}]`, `content[0]: "text" is required in a "text" part`, ""},
		{"ErrTextNumber", "user", `[{"type":"input_text","text":3}]`, `content[0].text must be a string, got a number`, ""},
		{"ErrRefusalList", "assistant", `[{"type":"refusal","refusal":["no"]}]`, `content[0].refusal must be a string, got a list`, ""},
		{"ErrMemberMisspelt", "user", `[{"type":"text","txet":"a"}]`, `content[0]: unknown field "txet" (did you mean "text"?)`, ""},
		{"ErrMemberUnknown", "user", `[{"type":"text","text":"a","url":"u"}]`, `content[0]: unknown field "url" (a "text" part has type and text)`, ""},
		{"ErrEmptyList", "user", `[]`, `"content" is an empty list: give the message's text as a string or as {"type": "text", "text": "…"}`, ""},
		{"ErrOnlyImages", "user", `[{"type":"image_url","image_url":{"url":"u"}},{"type":"input_audio","input_audio":{}}]`, `"content" holds no text, only content[].image_url and content[].input_audio, which mnemo does not store`, ""},
		{"ErrEmptyTexts", "user", `[{"type":"text","text":""}]`, `"content" holds no text: its text parts are empty`, ""},
		// A list of empty refusals was "an empty list" (review17).
		{"ErrEmptyRefusal", "assistant", `[{"type":"refusal","refusal":""}]`, `"content" holds no text: its refusal parts are empty`, ""},
		{"ErrEmptyTextAndRefusal", "assistant", `[{"type":"text","text":""},{"type":"refusal","refusal":""}]`, `"content" holds no text: its text and refusal parts are empty`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := `{"thread":"t","resource":"r","role":"` + c.role + `","content":` + c.content + `}`
			l, err := parseJSONL([]byte(line), 0)
			got := l.msg.Content
			if err != nil {
				got = err.Error()
			}
			if got != c.want || strings.Join(l.unstored, " ") != c.unstored {
				t.Errorf("%s:\n got %q, unstored %q\nwant %q, unstored %q", line, got, l.unstored, c.want, c.unstored)
			}
		})
	}
}

// TestParseResponsesItem: an OpenAI Responses item is read by its type,
// and a malformed one skips its line naming the member or the type.
// Before, every line with a "type" was `unknown field "type"`.
func TestParseResponsesItem(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       string // the message read (role, content, calls, tool_call_id), or the reason
		unstored   string
	}{
		{"OKMessage", `"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]`, `assistant "hi" [] ""`, ""},
		{"OKMessageInput", `"type":"message","role":"user","content":"hi"`, `user "hi" [] ""`, ""},
		{"OKTypeNull", `"type":null,"role":"user","content":"hi"`, `user "hi" [] ""`, ""},
		{"OKFunctionCall", `"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{\"a\":1}","status":"completed"`, `assistant "" [c1 f {"a":1}] ""`, ""},
		{"OKFunctionCallEmptyArguments", `"type":"function_call","call_id":"c1","name":"f","arguments":""`, `assistant "" [c1 f {}] ""`, ""},
		{"OKFunctionCallOutput", `"type":"function_call_output","call_id":"c1","output":"42"`, `tool "42" [] "c1"`, ""},
		{"OKFunctionCallOutputParts", `"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"42"},{"type":"input_image","image_url":"u"}]`, `tool "42" [] "c1"`, "output[].input_image"},
		{"ErrReasoning", `"type":"reasoning","id":"rs_1","summary":[]`, `unknown item type "reasoning": mnemo reads OpenAI Responses items of type message, function_call and function_call_output, and stores no other`, ""},
		{"ErrTypeMisspelt", `"type":"mesage","role":"user","content":"hi"`, `unknown item type "mesage" (did you mean "message"?)`, ""},
		{"ErrTypeCase", `"type":"Function_Call","call_id":"c1","name":"f"`, `unknown item type "Function_Call" (did you mean "function_call"? types are case-sensitive)`, ""},
		{"ErrTypeNumber", `"type":3,"role":"user","content":"hi"`, `"type" must be a string, got a number`, ""},
		{"ErrMessageArguments", `"type":"message","role":"user","content":"hi","arguments":"{}"`, `unknown field "arguments" (a "message" item has thread, resource, title, idle_ttl, id, role, content, name, tool_calls, tool_call_id, metadata, created_at, type and status)`, ""},
		{"ErrChatCallID", `"role":"tool","content":"42","call_id":"c1"`, `unknown field "call_id" (a record has thread, resource, title, idle_ttl, id, role, content, name, tool_calls, tool_call_id, metadata and created_at)`, ""},
		{"ErrFunctionCallRole", `"type":"function_call","role":"assistant","call_id":"c1","name":"f"`, `unknown field "role" (a "function_call" item has thread, resource, id, type, status, call_id, name, arguments, metadata and created_at)`, ""},
		{"ErrFunctionCallNoCallID", `"type":"function_call","name":"f","arguments":"{}"`, `"call_id" is required in a "function_call" item`, ""},
		{"ErrFunctionCallNoName", `"type":"function_call","call_id":"c1","arguments":"{}"`, `"name" is required in a "function_call" item`, ""},
		{"ErrFunctionCallArgumentsNumber", `"type":"function_call","call_id":"c1","name":"f","arguments":5`, `engine: invalid arguments: must be a JSON object (or a string holding a model's text that is not one), got a number`, ""},
		{"OKFunctionCallArgumentsText", `"type":"function_call","call_id":"c1","name":"f","arguments":"[1]"`, `assistant "" [c1 f "[1]"] ""`, ""},
		{"ErrFunctionCallCallIDNumber", `"type":"function_call","call_id":1,"name":"f"`, `"call_id" must be a string, got a number`, ""},
		{"ErrOutputNoCallID", `"type":"function_call_output","output":"42"`, `"call_id" is required in a "function_call_output" item`, ""},
		{"ErrOutputMissing", `"type":"function_call_output","call_id":"c1"`, `"output" is required in a "function_call_output" item`, ""},
		{"ErrOutputNumber", `"type":"function_call_output","call_id":"c1","output":42`, `"output" must be a string or a list of parts, got a number`, ""},
		{"ErrOutputPartType", `"type":"function_call_output","call_id":"c1","output":[{"type":"video","url":"u"}]`, `output[0]: unknown part type "video" (mnemo stores the text of text, input_text, output_text and refusal parts and passes over image_url, input_audio, file, input_image, input_file, image, document, thinking and redacted_thinking)`, ""},
		{"ErrOutputOnlyImage", `"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"u"}]`, `"output" holds no text, only output[].input_image, which mnemo does not store`, ""},
		{"ErrOutputContent", `"type":"function_call_output","call_id":"c1","content":"42"`, `unknown field "content" (a "function_call_output" item has thread, resource, id, type, status, call_id, output, metadata and created_at)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := `{"thread":"t","resource":"r",` + c.line + `}`
			l, err := parseJSONL([]byte(line), 0)
			m := l.msg
			var calls []string
			for _, tc := range m.ToolCalls {
				calls = append(calls, tc.ID+" "+tc.Name+" "+string(tc.Arguments))
			}
			got := fmt.Sprintf("%s %q %v %q", m.Role, m.Content, calls, m.ToolCallID)
			if err != nil {
				got = err.Error()
			}
			if got != c.want || strings.Join(l.unstored, " ") != c.unstored {
				t.Errorf("%s:\n got %s, unstored %q\nwant %s, unstored %q", line, got, l.unstored, c.want, c.unstored)
			}
		})
	}
}

// TestParseToolName: Ollama's "tool_name" of a tool result is stored as
// its name, as "name" is; before, it was counted unstored and the result
// stored without a name.
func TestParseToolName(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       string // the name stored, or the reason
		unstored   string
	}{
		{"OK", `"role":"tool","tool_call_id":"c1","content":"11","tool_name":"get_weather"`, "get_weather", ""},
		{"OKSameName", `"role":"tool","tool_call_id":"c1","content":"11","name":"get_weather","tool_name":"get_weather"`, "get_weather", ""},
		{"OKNameOnly", `"role":"tool","tool_call_id":"c1","content":"11","name":"get_weather","tool_name":""`, "get_weather", ""},
		{"OKUserUnstored", `"role":"user","content":"hi","tool_name":"get_weather"`, "", "tool_name"},
		{"ErrDifferent", `"role":"tool","tool_call_id":"c1","content":"11","name":"a","tool_name":"b"`, `"name" "a" and "tool_name" "b" name different tools: give the tool's name once`, ""},
		{"ErrNumber", `"role":"tool","tool_call_id":"c1","content":"11","tool_name":3`, `"tool_name" must be a string, got a number`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := `{"thread":"t","resource":"r",` + c.line + `}`
			l, err := parseJSONL([]byte(line), 0)
			got := l.msg.Name
			if err != nil {
				got = err.Error()
			}
			if got != c.want || strings.Join(l.unstored, " ") != c.unstored {
				t.Errorf("%s:\n got %s, unstored %q\nwant %s, unstored %q", line, got, l.unstored, c.want, c.unstored)
			}
		})
	}
}

// TestParseToolCallTypeArguments: a tool call's "type" is "function" or
// none, and its arguments are read as mnemo serve and engine.Append read
// them (engine.ToolCallArgumentsOf): a JSON object, a string holding one
// (the object), none, null, "" or "null" ({}), other text in a string
// (kept as the model's text); another type, or arguments that are a
// list, a number or true/false, skip the line naming the call's member.
// Before, "type" was never read ("custom" and 42 were stored as function
// calls), and a string holding text that is no object ("[1]", "3", "{bad")
// skipped the line where Append stored it as the model's text.
func TestParseToolCallTypeArguments(t *testing.T) {
	for _, c := range []struct {
		name, calls string
		want        string // the arguments stored, or the reason
	}{
		{"OKFunction", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]`, `{"a":1}`},
		{"OKNoType", `[{"id":"c1","name":"f","arguments":{"a":1}}]`, `{"a":1}`},
		{"OKTypeNull", `[{"id":"c1","type":null,"function":{"name":"f","arguments":{}}}]`, `{}`},
		{"OKEmptyArguments", `[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]`, `{}`},
		{"OKNullArguments", `[{"id":"c1","type":"function","function":{"name":"f","arguments":null}}]`, `{}`},
		{"OKNullArgumentsMnemo", `[{"id":"c1","name":"f","arguments":null}]`, `{}`},
		{"OKMarkBefore", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"\ufeff{\"a\":1}"}}]`, `{"a":1}`},
		{"OKSpaceAround", `[{"id":"c1","name":"f","arguments":" \u200b{\"a\":1}\n"}]`, `{"a":1}`},
		{"OKNoArguments", `[{"id":"c1","type":"function","function":{"name":"f"}}]`, `{}`},
		{"OKNullString", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"null"}}]`, `{}`},
		{"OKNotJSON", `[{"id":"c1","name":"f","arguments":"{\"a\":"}]`, `"{\"a\":"`},
		{"OKTextList", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"[1]"}}]`, `"[1]"`},
		{"OKTextNumber", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"3"}}]`, `"3"`},
		{"OKTextString", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"\"x\""}}]`, `"\"x\""`},
		{"OKTextTrue", `[{"id":"c1","function":{"name":"f","arguments":"true"}}]`, `"true"`},
		{"OKTextRepeatedKey", `[{"id":"c1","function":{"name":"f","arguments":"{\"a\":1,\"a\":2}"}}]`, `"{\"a\":1,\"a\":2}"`},
		{"ErrTypeCustom", `[{"id":"c1","type":"custom","function":{"name":"f","arguments":"{}"}}]`, `tool_calls[0].type is "custom": mnemo stores function calls only (a "type" of "function", or none)`},
		{"ErrTypeNumber", `[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":42,"function":{"name":"g","arguments":"{}"}}]`, `tool_calls[1].type must be a string, got a number`},
		{"ErrArgumentsNumber", `[{"id":"c1","type":"function","function":{"name":"f","arguments":3}}]`, `engine: invalid tool_calls[0].function.arguments: must be a JSON object (or a string holding a model's text that is not one), got a number`},
		{"ErrArgumentsTrue", `[{"id":"c1","function":{"name":"f","arguments":true}}]`, `engine: invalid tool_calls[0].function.arguments: must be a JSON object (or a string holding a model's text that is not one), got true or false`},
		{"ErrArgumentsMnemoNumber", `[{"id":"c1","name":"f","arguments":5}]`, `engine: invalid tool_calls[0].arguments: must be a JSON object (or a string holding a model's text that is not one), got a number`},
		{"ErrArgumentsMnemoList", `[{"id":"c1","name":"f","arguments":[1]}]`, `engine: invalid tool_calls[0].arguments: must be a JSON object (or a string holding a model's text that is not one), got a list`},
		{"ErrArgumentsSecondCall", `[{"id":"c1","name":"f","arguments":{}},{"id":"c2","name":"f","arguments":[]}]`, `engine: invalid tool_calls[1].arguments: must be a JSON object (or a string holding a model's text that is not one), got a list`},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := `{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":` + c.calls + `}`
			l, err := parseJSONL([]byte(line), 0)
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case len(l.msg.ToolCalls) > 0:
				got = string(l.msg.ToolCalls[0].Arguments)
			}
			if got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", line, got, c.want)
			}
		})
	}
}

// FuzzParseJSONL feeds parseJSONL one line and checks that it never
// panics; that a line it accepts keeps what the line says (its thread,
// resource, ids, role and name as encoding/json reads them, its content's
// text parts in order) and reads back the same when its message is
// written out as a JSONL line (round trip); that every unstored member it
// names is one; and that a line it skips has a reason naming a member, a
// value or a column. Seeds: every line of testdata/seed/sample.jsonl,
// testdata/malformed.jsonl and testdata/chatapi/*.jsonl, and lines of the
// shapes read since (Responses items, tool_name, a tool call's type).
//
//	go test ./importer -run '^$' -fuzz FuzzParseJSONL -fuzztime 60s
func FuzzParseJSONL(f *testing.F) {
	files, _ := filepath.Glob("testdata/chatapi/*.jsonl")
	for _, name := range append(files, "testdata/seed/sample.jsonl", "testdata/malformed.jsonl") {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			f.Add(bytes.TrimSpace(line))
		}
	}
	f.Add([]byte(`{"thread":"t\u0000","resource":"r","role":"user","content":"\ud800"}`))
	// The shapes of Responses items, Ollama's tool_name and a tool call's
	// type and arguments (the cases of TestParseResponsesItem,
	// TestParseToolName and TestParseToolCallTypeArguments, one of each).
	for _, line := range []string{
		`{"thread":"t","resource":"r","type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{\"a\":1}","status":"completed"}`,
		`{"thread":"t","resource":"r","type":"function_call","call_id":"c1","name":"f","arguments":"[1]"}`,
		`{"thread":"t","resource":"r","type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"42"},{"type":"input_image","image_url":"u"}]}`,
		`{"thread":"t","resource":"r","type":"function_call_output","call_id":"c1","output":42}`,
		`{"thread":"t","resource":"r","type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]}`,
		`{"thread":"t","resource":"r","type":null,"role":"user","content":"hi"}`,
		`{"thread":"t","resource":"r","type":"reasoning","id":"rs_1","summary":[]}`,
		`{"thread":"t","resource":"r","type":3,"role":"user","content":"hi"}`,
		`{"thread":"t","resource":"r","role":"tool","tool_call_id":"c1","content":"11","tool_name":"get_weather"}`,
		`{"thread":"t","resource":"r","role":"tool","tool_call_id":"c1","content":"11","name":"a","tool_name":"b"}`,
		`{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"custom","function":{"name":"f","arguments":"{}"}}]}`,
		`{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"3"}}]}`,
		`{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"f","arguments":null}]}`,
		// mnemo export's lines: a thread's title on its first.
		`{"thread":"t","resource":"r","title":"Trip to Porto","id":"m1","role":"user","content":"hi <b>&","metadata":{"n":12345678901234567890},"created_at":"2026-03-02T09:00:00.123Z"}`,
		`{"thread":"t","resource":"r","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"f","arguments":"not json"}],"created_at":"2026-03-02T09:00:01Z"}`,
		`{"thread":"t","resource":"r","type":"message","title":"x","role":"user","content":"hi"}`,
		`{"thread":"t","resource":"r","type":"function_call","title":"x","call_id":"c1","name":"f"}`,
		`{"thread":"t","resource":"r","Title":"x","role":"user","content":"hi"}`,
		`{"thread":"t","resource":"r","title":3,"role":"user","content":"hi"}`,
		`{"type":"working_memory","thread":"t","resource":"r","mode":"template","content":"# plan <b>\u2028"}`,
		`{"type":"working_memory","resource":"r","mode":"schema","content":"{\"a\":1}"}`,
		`{"type":"working_memory","resource":"r","mode":"schema","content":3}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b) // as Import gives it, and never an empty line
		if len(b) == 0 {
			return
		}
		l, err := parseJSONL(b, 0)
		if err != nil {
			checkReason(t, b, err)
			return
		}
		if l.wm != nil {
			checkWorkingMemory(t, b, l)
			return
		}
		checkKept(t, b, l)
		checkRoundTrip(t, l)
		for _, u := range l.unstored {
			if !slices.Contains(unstoredMembers, u) && !strings.HasPrefix(u, "content[].") && !strings.HasPrefix(u, "output[].") {
				t.Fatalf("%s: unstored %q is no member", b, u)
			}
		}
	})
}

// checkReason fails t unless err, the reason parseJSONL skipped line b,
// is clean text that names a member or value (quoted, or the member
// leading the reason: "tool_calls: …", "content[0].text …"), a column, or
// says what the whole line is.
func checkReason(t *testing.T, b []byte, err error) {
	r := err.Error()
	if r == "" || !utf8.ValidString(r) {
		t.Fatalf("%q: reason %q is empty or not UTF-8", b, r)
	}
	for _, names := range []string{`"`, "column ", "JSON value", "JSON object", "incomplete record"} {
		if strings.Contains(r, names) {
			return
		}
	}
	for _, k := range jsonlMembers {
		if len(r) > len(k) && strings.HasPrefix(r, k) && strings.ContainsRune(":[.", rune(r[len(k)])) {
			return
		}
	}
	t.Fatalf("%q: reason %q names no member, value or column", b, r)
}

// checkKept fails t unless the message parseJSONL read from line b holds
// what encoding/json reads there: thread, resource, id, role, name and
// tool_call_id, a string content (when not empty: a refusal may replace
// an empty one), and each non-empty text of a list's text parts, in order.
func checkKept(t *testing.T, b []byte, l jsonlLine) {
	var rec struct {
		Thread, Resource, ID, Role, Name string
		Title                            string
		ToolCallID                       string `json:"tool_call_id"`
		ToolName                         string `json:"tool_name"`
		Content                          any
		Type                             string
		CallID                           string `json:"call_id"`
		Output                           any
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: accepted, but encoding/json reads no record: %v", b, err)
	}
	m := l.msg
	if rec.Role == "tool" && rec.Name == "" { // Ollama's
		rec.Name = rec.ToolName
	}
	switch rec.Type { // a Responses item (responses.go)
	case itemFunctionCall:
		if len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != rec.CallID || m.ToolCalls[0].Name != rec.Name || m.Content != "" {
			t.Fatalf("%s: read as %+v, want one call %q of %q", b, m, rec.CallID, rec.Name)
		}
		rec.Role, rec.Name = "assistant", ""
	case itemFunctionCallOutput:
		rec.Role, rec.ToolCallID, rec.Content = "tool", rec.CallID, rec.Output
	}
	if rec.Type == itemFunctionCall || rec.Type == itemFunctionCallOutput {
		rec.Title = "" // no member of theirs
	}
	if rec.Thread != l.thread || rec.Resource != l.resource || rec.Title != l.title || rec.ID != m.ID || rec.Role != m.Role || rec.Name != m.Name || rec.ToolCallID != m.ToolCallID {
		t.Fatalf("%s: read %q %q %q %q %q %q", b, l.thread, l.resource, m.ID, m.Role, m.Name, m.ToolCallID)
	}
	switch c := rec.Content.(type) {
	case string:
		if c != "" && c != m.Content {
			t.Fatalf("%s: content %q, want %q", b, m.Content, c)
		}
	case []any:
		rest := m.Content
		for _, p := range c {
			p, _ := p.(map[string]any)
			text, _ := p["text"].(string)
			if typ, _ := p["type"].(string); !slices.Contains(textPartTypes, typ) || text == "" {
				continue
			}
			i := strings.Index(rest, text)
			if i < 0 {
				t.Fatalf("%s: content %q lacks the part %q (or holds it out of order)", b, m.Content, text)
			}
			rest = rest[i+len(text):]
		}
	}
}

// checkRoundTrip fails t unless the message of l, written as a JSONL
// line in mnemo's own shape, reads back the same.
func checkRoundTrip(t *testing.T, l jsonlLine) {
	m := l.msg
	rec := map[string]any{"thread": l.thread, "resource": l.resource, "id": m.ID, "role": m.Role,
		"content": m.Content, "name": m.Name, "tool_call_id": m.ToolCallID, "metadata": m.Metadata, "title": l.title}
	if !m.CreatedAt.IsZero() {
		rec["created_at"] = m.CreatedAt.Format(time.RFC3339Nano)
		if y := m.CreatedAt.Year(); y > 9999 { // Unix milliseconds past RFC 3339
			rec["created_at"] = m.CreatedAt.UnixMilli()
		}
	}
	calls := []map[string]any{}
	for _, c := range m.ToolCalls {
		// An object as JSON text in a string (OpenAI's shape), read
		// back byte for byte; a model's text (a string) as that text.
		args := string(c.Arguments)
		var text string
		if json.Unmarshal(c.Arguments, &text) == nil {
			args = text
		}
		calls = append(calls, map[string]any{"id": c.ID, "name": c.Name, "arguments": args})
	}
	if m.ToolCalls != nil { // [] too
		rec["tool_calls"] = calls
	}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatalf("%+v: %v", m, err)
	}
	back, err := parseJSONL(line, 0)
	if err != nil {
		t.Fatalf("%s, written from %+v, is refused: %v", line, m, err)
	}
	if !reflect.DeepEqual(textArguments(back.msg), textArguments(m)) || back.thread != l.thread || back.resource != l.resource || back.title != l.title {
		t.Fatalf("%s reads back as\n%+v, want\n%+v", line, back.msg, m)
	}
	checkExportRoundTrip(t, l)
}

// checkWorkingMemory fails t unless the "working_memory" line b (read as
// l) keeps its resource, thread, mode and content as encoding/json reads
// them, and the line Export writes for that state reads back the same.
func checkWorkingMemory(t *testing.T, b []byte, l jsonlLine) {
	var rec wmRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: accepted, but encoding/json reads no record: %v", b, err)
	}
	wm := l.wm
	if rec.Resource != wm.resource || rec.Thread != l.thread || rec.Mode != string(wm.mode) || rec.Content != wm.content {
		t.Fatalf("%s: read as %+v", b, wm)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		t.Fatal(err)
	}
	back, err := parseJSONL(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 0)
	if err != nil || back.wm == nil || *back.wm != *wm {
		t.Fatalf("%s, written as %s, reads back as %+v (%v)", b, buf.Bytes(), back.wm, err)
	}
}

// checkExportRoundTrip fails t unless the line Export writes for l's
// message (newExportRecord, with l's title) reads back as the same
// message, thread, resource and title, its tool calls' arguments as the
// same bytes. A created_at past the year 9999, which RFC 3339 cannot
// write (nor the engine store), is left out.
func checkExportRoundTrip(t *testing.T, l jsonlLine) {
	m := l.msg
	if m.CreatedAt.Year() > 9999 || m.CreatedAt.IsZero() {
		m.CreatedAt = time.Date(2026, 12, 5, 15, 0, 0, 0, time.UTC)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(newExportRecord(l.thread, l.resource, l.title, m)); err != nil {
		t.Fatalf("%+v: %v", m, err)
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	back, err := parseJSONL(line, 0)
	if err != nil {
		t.Fatalf("%s, exported from %+v, is refused: %v", line, m, err)
	}
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil // written as none, read back as none
	}
	if !reflect.DeepEqual(back.msg, m) || back.thread != l.thread || back.resource != l.resource || back.title != l.title || len(back.unstored) > 0 {
		t.Fatalf("%s reads back as\n%+v %q, want\n%+v %q", line, back.msg, back.title, m, l.title)
	}
}

// textArguments is m with each tool call's arguments that are a string
// (a model's text, kept as the line wrote it) written as encoding/json
// writes that text, so that two spellings of one string compare equal.
func textArguments(m engine.Message) engine.Message {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i, c := range m.ToolCalls {
		var text string
		if json.Unmarshal(c.Arguments, &text) == nil {
			m.ToolCalls[i].Arguments, _ = json.Marshal(text)
		}
	}
	return m
}

// TestParseTrailingBracket: a record followed by a "}" or "]" is
// refused, naming its column, as is one followed by another character
// no JSON value begins with (a trailing comma). Before, encoding/json's Decoder.More is
// false there, so the line was stored, and as json.Valid was false its
// members went unchecked: "Role" and "threAd" were read as role and
// thread (found by FuzzParseJSONL).
func TestParseTrailingBracket(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"thread":"t","resource":"r","role":"user","content":"hi"}}`, `invalid record at column 59: '}' after the record's end (a closing bracket too many?)`},
		{`{"thread":"t","resource":"r","Role":"user","content":"hi"} ]`, `invalid record at column 60: ']' after the record's end (a closing bracket too many?)`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} {}`, `more than one JSON value on the line`},
		// What follows is no JSON value: it was "more than one JSON value
		// on the line" (review17).
		{`{"thread":"t","resource":"r","role":"user","content":"hi"},`, `invalid record at column 59: ',' after the record's end (a trailing comma? a JSONL line holds one record and nothing after it)`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} // note`, `invalid record at column 60: '/' after the record's end`},
		{"{\"thread\":\"t\",\"resource\":\"r\",\"role\":\"user\",\"content\":\"hi\"}\x00", `invalid record at column 59: '\x00' after the record's end`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} nul`, `invalid record at column 60: 'n' after the record's end`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} null`, `more than one JSON value on the line`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} "x"`, `more than one JSON value on the line`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi"} -1`, `more than one JSON value on the line`},
	} {
		if _, err := parseJSONL([]byte(c.line), 0); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.line, err, c.want)
		}
	}
}
