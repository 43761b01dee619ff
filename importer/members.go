package importer

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// jsonlMembers are the members of a JSONL record, as the format lists them.
var jsonlMembers = []string{"thread", "resource", "title", "idle_ttl", "id", "role", "content", "name", "tool_calls", "tool_call_id", "metadata", "created_at"}

// unstoredMembers are the members of a message that chat APIs write and
// mnemo has no field for: a line holding them is stored without them
// (but a "refusal", or else an "audio" output's transcript, kept as the
// content when the content is empty or null: jsonlRecord.keepAnswer),
// and Report.Unstored counts the lines where one held a value. A member
// neither in jsonlMembers nor here still skips its line (a misspelling).
// Each is listed with the API reference that defines it.
var unstoredMembers = []string{
	// OpenAI Chat Completions, the chat completion object's
	// choices[].message (openai-python ChatCompletionMessage, go-openai
	// ChatCompletionMessage): refusal (a string or null), annotations (URL
	// citations of web search), audio (audio output) and function_call
	// (deprecated, replaced by tool_calls).
	"refusal", "annotations", "audio", "function_call",
	// OpenAI, GET /v1/chat/completions/{id}/messages (a stored
	// completion's messages): content_parts, the text and image_url parts
	// of a message given as parts, else null.
	"content_parts",
	// DeepSeek's deepseek-reasoner (Create Chat Completion) and vLLM before
	// 0.11: reasoning_content, the chain of thought; vLLM from 0.11
	// ("reasoning used to be called reasoning_content") and Ollama's
	// OpenAI-compatible /v1/chat/completions (openai.Message.Reasoning):
	// reasoning.
	"reasoning_content", "reasoning",
	// Ollama's /api/chat (docs/api.md; api.Message): thinking (with
	// "think"), images (base64, null in its responses) and tool_name (a
	// tool result's tool: stored as a "tool" message's name,
	// jsonlRecord.toolName; unstored on another role's).
	"thinking", "images", "tool_name",
}

// toolCallMembers are the members of a tool call in OpenAI's shape and
// mnemo's together; functionMembers those of OpenAI's "function" object.
// toolCallUnused and functionUnused are the members chat APIs add that
// carry nothing the list does not: "index", a tool call's position,
// which streamed chunks use to join its parts (OpenAI's
// choices[].delta.tool_calls[].index; go-openai ToolCall.Index; Ollama's
// OpenAI-compatible openai.ToolCall.Index, written in every message), and
// in Ollama's /api/chat on the function (api.ToolCallFunction.Index). They
// are accepted and not counted as unstored.
var (
	toolCallMembers = []string{"id", "type", "function", "name", "arguments"}
	functionMembers = []string{"name", "arguments"}
	toolCallUnused  = []string{"index"}
	functionUnused  = []string{"index"}
)

// recordMembers checks the member names of the JSONL record b (valid
// JSON; checkMembers), each one of known or unused (lineMembers: by the
// record's item type), and returns those of unused it gives a value: not
// null, "", [] or {} (OpenAI writes "refusal": null and "annotations": []
// in every answer, which lose nothing).
func recordMembers(b []byte, what string, known, unused []string) (unstored []string, err error) {
	for k, v := range jsonkey.Members(b) {
		if err := memberFault(k, what, known, unused); err != nil {
			return nil, err
		}
		if k == "audio" {
			if err := audioMembers(v); err != nil {
				return nil, err
			}
		}
		if slices.Contains(unused, k) && !emptyJSON(v) {
			unstored = append(unstored, k)
		}
	}
	return unstored, nil
}

// audioMembers is the reason an "audio" object v is malformed, or nil:
// a member naming "transcript", the one mnemo reads (keepAnswer), in
// another case, which encoding/json would match. Its other members
// (OpenAI's id, data and expires_at) are not read, and not checked.
// Before, {"audio": {"Transcript": "…"}} was stored as the content.
func audioMembers(v []byte) error {
	if len(v) == 0 || v[0] != '{' {
		return nil // not an object: decodeRecord says so
	}
	for k := range jsonkey.Members(v) {
		if k != "transcript" && strings.EqualFold(k, "transcript") {
			return errors.New(jsonkey.UnknownDetail("audio."+k, "transcript"))
		}
	}
	return nil
}

// checkMembers is the reason the JSON object obj (valid JSON), a part of
// a JSONL record (what names it: "a tool call"), is malformed for a
// member's name, or nil: memberFault of its first member at fault, in the
// order obj gives them.
func checkMembers(obj []byte, what string, known, unused []string) error {
	for k := range jsonkey.Members(obj) {
		if err := memberFault(k, what, known, unused); err != nil {
			return err
		}
	}
	return nil
}

// memberFault is the reason a member named k of an object (what names
// the object) is malformed, or nil: k is neither one of known nor one of
// unused, or names one of them in another case (encoding/json would
// match it; the HTTP API refuses it): `unknown field "contnet" (did you
// mean "content"?)`, `unknown field "Role" (did you mean "role"? names
// are case-sensitive)`, or known listed when no name is close.
func memberFault(k, what string, known, unused []string) error {
	if slices.Contains(known, k) || slices.Contains(unused, k) {
		return nil
	}
	if near := jsonkey.Closest(k, slices.Concat(known, unused)); near != "" {
		return errors.New(jsonkey.UnknownDetail(k, near))
	}
	return fmt.Errorf("unknown field %q (%s has %s)", k, what, jsonkey.AndList(known))
}

// emptyJSON reports whether the JSON value v is null, "", [] or {}.
func emptyJSON(v []byte) bool {
	t := bytes.TrimSpace(v)
	switch {
	case string(t) == "null" || string(t) == `""`:
		return true
	case len(t) >= 2 && (t[0] == '[' || t[0] == '{'):
		// v is valid JSON (its record decoded): nothing but blanks
		// between the brackets is an empty list or object.
		return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
	}
	return false
}
