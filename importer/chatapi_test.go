package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestJSONLChatAPIs imports messages as OpenAI, DeepSeek, vLLM and Ollama
// write them (testdata/chatapi, from each API's documented examples):
// the members those APIs add are accepted and not stored, and the report
// counts the lines where one held a value; an OpenAI refusal, or the
// transcript of an audio answer, is the content when the content is null;
// Ollama's arguments given as an object are the call's arguments, and
// its tool result's "tool_name" the result's name (it was unstored, and
// the result had no name). Before,
// every line holding "refusal", "annotations", "reasoning_content",
// "thinking", "images", "tool_name" or a tool call's "index" was skipped
// (`unknown field "refusal"`), and Ollama's object arguments were
// `"function.arguments" must be a string, got an object`. A content given
// as a list of parts (OpenAI's Chat Completions and Responses, Anthropic's
// Messages) is stored as its text parts' texts, the parts not stored
// counted as content[].<type>; before, every such line was skipped
// (`"content" must be a string, got a list`).
func TestJSONLChatAPIs(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		file, thread    string
		stored, skipped int
		unstored        int
		members         string
		content         map[string]string // message id -> content stored
		args            map[string]string // message id -> its first call's arguments
		names           map[string]string // message id -> its name
		problems        []string
	}{
		{file: "openai.jsonl", thread: "oa", stored: 12, unstored: 2, members: "annotations audio",
			content: map[string]string{
				"oa2": "\n\nHello there, how may I assist you today?",
				"oa6": "I'm sorry, I cannot assist with that request.",
				"oa8": "Yes, golden retrievers are known to be ...",
			},
			args: map[string]string{"oa10": `{"latitude":48.8566,"longitude":2.3522}`, "oa12": `{"location":"Paris, France"}`}},
		{file: "openai-legacy.jsonl", thread: "fc", stored: 1, skipped: 1, problems: []string{
			`line 2: "content" is required: the line has only a "function_call" (OpenAI's deprecated function calling), which mnemo does not store; give the call as "tool_calls"`}},
		{file: "deepseek.jsonl", thread: "ds", stored: 2, unstored: 1, members: "reasoning_content",
			content: map[string]string{"ds2": "9.8 is greater than 9.11."}},
		{file: "vllm.jsonl", thread: "vl", stored: 2, unstored: 1, members: "reasoning"},
		{file: "ollama.jsonl", thread: "ol", stored: 9, unstored: 2, members: "thinking reasoning",
			content: map[string]string{"ol2": "The", "ol7": "11 degrees celsius"},
			names:   map[string]string{"ol7": "get_weather"},
			args:    map[string]string{"ol6": `{"city":"Toronto"}`, "ol8": `{"command":"ls -la"}`}},
		{file: "openai-parts.jsonl", thread: "op", stored: 8, skipped: 2, unstored: 4,
			members: "content[].image_url content[].input_audio content[].file",
			content: map[string]string{
				"op1": "What's in this image?",
				"op2": "The image shows a wooden boardwalk through a grassy field.",
				"op4": "What is the first dragon in the book?",
				"op5": "What are in these images?\nIs there any difference between them?",
				"op6": "I'm sorry, I cannot assist with that request.",
				"op7": "",
				"op8": "14",
			},
			args: map[string]string{"op7": `{"location":"Paris, France"}`},
			problems: []string{
				`line 9: "content" holds no text, only content[].image_url, which mnemo does not store`,
				`line 10: content[0]: unknown part type "video_url" (mnemo stores the text of text, input_text, output_text and refusal parts and passes over image_url, input_audio, file, input_image, input_file, image, document, thinking and redacted_thinking)`,
			}},
		{file: "responses.jsonl", thread: "rs", stored: 4, unstored: 3,
			members: "content[].input_image content[].input_file content[].annotations",
			content: map[string]string{
				"rs1": "what's in this image?",
				"msg_67ccd3acc8d48190a77525dc6de64b4104becb25c8b8ec28": "The image depicts a scenic landscape with a wooden boardwalk.",
				"rs3": "What is the first dragon in the book?",
			}},
		{file: "anthropic.jsonl", thread: "an", stored: 4, skipped: 2, unstored: 4,
			members: "content[].image content[].thinking content[].document content[].citations",
			content: map[string]string{
				"an1": "Describe this image.",
				"an2": "Based on my analysis...",
				"an4": "According to the document, the grass is green and the sky is blue.",
			},
			problems: []string{
				`line 5: content[1] is a "tool_use" part (Anthropic's tool call), which mnemo does not read: give the call in "tool_calls" as {"id", "name", "arguments"}`,
				`line 6: content[0] is a "tool_result" part (Anthropic's tool result), which mnemo does not read: give the result as a line of its own, {"role": "tool", "tool_call_id", "content"}`,
			}},
		{file: "ollama-doc-toolcall.jsonl", thread: "od", stored: 1, skipped: 2, problems: []string{
			`line 2: tool_calls[0].id must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got an empty id`,
			`line 3: invalid tool_call_id: is required for a tool message`}},
	} {
		t.Run(c.file, func(t *testing.T) {
			e := enginetest.MustOpen(t, engine.Config{})
			rep, err := importer.Import(ctx, e, filepath.Join("testdata", "chatapi", c.file), importer.Options{Name: c.file})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Messages != c.stored || rep.Skipped != c.skipped || rep.Unstored != c.unstored || strings.Join(rep.UnstoredMembers, " ") != c.members {
				t.Fatalf("stored %d, skipped %d, unstored %d %q (problems %v); want %d, %d, %d %q",
					rep.Messages, rep.Skipped, rep.Unstored, rep.UnstoredMembers, rep.Problems, c.stored, c.skipped, c.unstored, c.members)
			}
			for i, want := range c.problems {
				if got := rep.Problems[i].Where + ": " + rep.Problems[i].Reason(); got != want {
					t.Errorf("problem %d:\n got %s\nwant %s", i, got, want)
				}
			}
			stored := messages(t, e, c.thread)
			for id, want := range c.content {
				if m, ok := stored[id]; !ok || m.Content != want {
					t.Errorf("%s: content %q, want %q", id, m.Content, want)
				}
			}
			for id, want := range c.names {
				if m := stored[id]; m.Name != want {
					t.Errorf("%s: name %q, want %q", id, m.Name, want)
				}
			}
			for id, want := range c.args {
				if m := stored[id]; len(m.ToolCalls) != 1 || string(m.ToolCalls[0].Arguments) != want {
					t.Errorf("%s: tool calls %+v, want one with arguments %s", id, m.ToolCalls, want)
				}
			}
		})
	}
}

// messages maps the ids of thread's stored messages to the messages.
func messages(t *testing.T, e *engine.Engine, thread string) map[string]engine.Message {
	t.Helper()
	ms, err := e.Messages(context.Background(), thread, 1, 0)
	if err != nil {
		t.Fatalf("messages of %s: %v", thread, err)
	}
	out := map[string]engine.Message{}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out
}

// TestJSONLMemberCase: a member named in another case than the format's
// ("Role", "CONTENT", a tool call's "ID") skips the line naming it and
// the member it resembles, as the HTTP API refuses such a body member.
// Before, encoding/json matched it case-insensitively and stored it.
func TestJSONLMemberCase(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		line, want string
	}{
		{`{"thread":"t","resource":"r","Role":"user","content":"hi"}`, `unknown field "Role" (did you mean "role"? names are case-sensitive)`},
		{`{"thread":"t","resource":"r","role":"user","CONTENT":"hi"}`, `unknown field "CONTENT" (did you mean "content"? names are case-sensitive)`},
		{`{"thread":"t","resource":"r","role":"assistant","content":"no","Refusal":"no"}`, `unknown field "Refusal" (did you mean "refusal"? names are case-sensitive)`},
		{`{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":[{"ID":"c1","name":"f","arguments":{}}]}`,
			`tool_calls[0]: unknown field "ID" (did you mean "id"? names are case-sensitive)`},
		{`{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"Name":"f","arguments":"{}"}}]}`,
			`tool_calls[0].function: unknown field "Name" (did you mean "name"? names are case-sensitive)`},
		{`{"thread":"t","resource":"r","role":"assistant","content":"hi","reasoning_contnet":"x"}`, `unknown field "reasoning_contnet" (did you mean "reasoning_content"?)`},
	} {
		p := writeFile(t, "f.jsonl", c.line+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		if want := "importer: f.jsonl line 1: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", c.line, err, want)
		}
	}
}

// TestJSONLUnstoredValues: an unstored member that holds nothing (null,
// "", [], {}) is not counted, one that holds something is, and a refusal
// kept as the content is not; a refusal beside content is.
func TestJSONLUnstoredValues(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		members  string
		unstored int
	}{
		{`"refusal":null,"annotations":[ ],"audio":null,"images":{},"thinking":""`, 0},
		{`"annotations":[{"type":"url_citation"}]`, 1},
		{`"refusal":"I can't."`, 1}, // the content is "x"
		{`"function_call":{"name":"f","arguments":"{}"}`, 1},
	} {
		line := `{"thread":"t","resource":"r","role":"assistant","content":"x",` + c.members + "}\n"
		rep, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), writeFile(t, "f.jsonl", line), importer.Options{Strict: true})
		if err != nil || rep.Messages != 1 || rep.Unstored != c.unstored {
			t.Errorf("%s: %+v, %v; want 1 stored, %d unstored", c.members, rep, err, c.unstored)
		}
	}
}
