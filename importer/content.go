package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// partJoin is what separates the texts of a content given as a list of
// parts when they are stored as one, for a message of the role: nothing
// for an assistant's, whose parts are pieces of one answer (Anthropic
// splits a sentence into text blocks at its citations, "According to the
// document, " "the grass is green" " and " …, Messages API, Citations;
// openai-python's Response.output_text concatenates a Responses answer's
// output_text parts with ""), a newline for another role's, whose parts
// are pieces a caller gave, as vLLM's OpenAI-compatible server joins them
// into the prompt its model reads (vllm/entrypoints/chat_utils.py,
// _parse_chat_message_content_parts: "\n".join(texts)). OpenAI's API
// reference says nothing of how it joins them.
func partJoin(role string) string {
	if role == "assistant" {
		return ""
	}
	return "\n"
}

// Content part types, by what mnemo does with them.
var (
	// textPartTypes hold text in their "text" member, which is stored:
	// OpenAI Chat Completions' "text" (every role's content parts) and
	// Anthropic's Messages "text" block; OpenAI Responses' "input_text"
	// and "output_text".
	textPartTypes = []string{"text", "input_text", "output_text"}
	// refusalPartType holds a refusal in its "refusal" member (OpenAI
	// Chat Completions' assistant content part, Responses' output): stored
	// as the content when the list has no text part, as a record's
	// "refusal" is (jsonlRecord.keepAnswer); else counted unstored.
	refusalPartType = "refusal"
	// unstoredPartTypes hold what mnemo has no field for: a line holding
	// one is stored without it and counted unstored as
	// "content[].<type>". OpenAI Chat Completions' user content parts
	// image_url, input_audio and file; OpenAI Responses' input_image and
	// input_file; Anthropic's Messages image and document blocks, and its
	// thinking and redacted_thinking blocks (the chain of thought, as
	// "reasoning_content" is DeepSeek's).
	unstoredPartTypes = []string{"image_url", "input_audio", "file", "input_image", "input_file",
		"image", "document", "thinking", "redacted_thinking"}
	// anthropicToolParts are Anthropic's tool call and tool result as
	// content blocks, which a JSONL line gives as "tool_calls" and as a
	// "tool" message: a line holding one is skipped saying so.
	anthropicToolParts = map[string]string{
		"tool_use":    `is a "tool_use" part (Anthropic's tool call), which mnemo does not read: give the call in "tool_calls" as {"id", "name", "arguments"}`,
		"tool_result": `is a "tool_result" part (Anthropic's tool result), which mnemo does not read: give the result as a line of its own, {"role": "tool", "tool_call_id", "content"}`,
	}
)

// Members of a text part and a refusal part. partUnused are members APIs
// add that carry nothing stored and are accepted, counted unstored as
// "content[].<member>" when they hold a value: OpenAI Responses'
// output_text "annotations" and "logprobs", Anthropic's text block
// "citations". partIgnored are accepted and never counted: Anthropic's
// "cache_control", a request's caching directive.
var (
	textPartMembers    = []string{"type", "text"}
	refusalPartMembers = []string{"type", "refusal"}
	partUnused         = []string{"annotations", "logprobs", "citations"}
	partIgnored        = []string{"cache_control"}
)

// recordContent is a record's "content" read: its text, whether one was
// given (a string or a list, not absent or null), and the parts and part
// members it held that mnemo does not store (content[].image_url,
// content[].annotations), each once.
//
// The text of a list is its text parts' texts, those not empty, joined
// with partJoin(role); when it has none, its refusal parts' texts joined so (an
// OpenAI refusal, as a record's "refusal" is kept: jsonlRecord.keepAnswer),
// else those refusals are unstored ("content[].refusal").
type recordContent struct {
	text      string
	given     bool
	parts     bool // given as a list
	textParts int  // text parts in the list, empty or not
	refusals  int  // refusal parts in the list, empty or not
	unstored  []string
}

// parseContent reads the "content" member raw (valid JSON, or empty when
// absent) of a record of the role: a string, null, or a list of parts, each an object
// with a "type" (textPartTypes, refusalPartType, unstoredPartTypes). A
// part of another type, a text part with a member it does not have, and
// a value of the wrong type are errors naming the part:
// `content[2]: unknown part type "video_url"`.
func parseContent(raw json.RawMessage, role string) (c recordContent, err error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return c, nil
	case raw[0] == '"':
		c.given = true
		return c, json.Unmarshal(raw, &c.text)
	case raw[0] != '[':
		return c, fmt.Errorf(`"content" must be a string or a list of parts, got %s`, valueKind(raw))
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return c, fmt.Errorf("content: %w", err)
	}
	c.given, c.parts = true, true
	var texts, refusals []string
	for i, p := range parts {
		kind, text, unstored, err := parsePart(p)
		if err != nil {
			return c, fmt.Errorf("content[%d]%w", i, err)
		}
		switch {
		case kind == "text":
			c.textParts++
			if text != "" {
				texts = append(texts, text)
			}
		case kind == refusalPartType:
			c.refusals++
			if text != "" {
				refusals = append(refusals, text)
			}
		}
		for _, u := range unstored {
			if !slices.Contains(c.unstored, u) {
				c.unstored = append(c.unstored, u)
			}
		}
	}
	c.text = strings.Join(texts, partJoin(role))
	switch {
	case len(refusals) > 0 && len(texts) > 0:
		c.unstored = append(c.unstored, "content[]."+refusalPartType)
	case len(refusals) > 0:
		c.text = strings.Join(refusals, partJoin(role))
	}
	return c, nil
}

// noText is the reason a content given as a list of parts holds no text
// to store (and the line has no tool call to store instead), naming what
// it holds.
func (c recordContent) noText() error {
	switch {
	case len(c.unstored) > 0:
		return fmt.Errorf(`"content" holds no text, only %s, which mnemo does not store`, jsonkey.AndList(c.unstored))
	case c.textParts > 0 && c.refusals > 0:
		return errors.New(`"content" holds no text: its text and refusal parts are empty`)
	case c.textParts > 0:
		return errors.New(`"content" holds no text: its text parts are empty`)
	case c.refusals > 0:
		return errors.New(`"content" holds no text: its refusal parts are empty`)
	}
	return errors.New(`"content" is an empty list: give the message's text as a string or as {"type": "text", "text": "…"}`)
}

// parsePart reads one content part p: kind "text" (a text part) with its
// text, refusalPartType with the refusal's text, or "" for a part not
// stored; unstored names what it holds that is not stored. Errors begin
// with the part's member (": …", ".text …"), for the caller to prefix
// with the part's place.
func parsePart(p json.RawMessage) (kind, text string, unstored []string, err error) {
	if len(p) == 0 || p[0] != '{' {
		return "", "", nil, fmt.Errorf(` must be an object, a part such as {"type": "text", "text": "…"}, got %s`, valueKind(p))
	}
	var typ json.RawMessage
	other := "" // a "Type" or "TYPE": said rather than that "type" is missing
	for k, v := range jsonkey.Members(p) {
		switch {
		case k == "type":
			typ = v
		case strings.EqualFold(k, "type"):
			other = k
		}
	}
	switch {
	case len(typ) == 0 && other != "":
		return "", "", nil, errors.New(": " + jsonkey.UnknownDetail(other, "type"))
	case len(typ) == 0:
		return "", "", nil, errors.New(`: "type" is required`)
	}
	var t string
	if err := json.Unmarshal(typ, &t); err != nil {
		return "", "", nil, fmt.Errorf(`.type must be a string, got %s`, valueKind(typ))
	}
	switch {
	case slices.Contains(textPartTypes, t):
		text, unstored, err = partText(p, t, "text", textPartMembers)
		return "text", text, unstored, err
	case t == refusalPartType:
		text, unstored, err = partText(p, t, "refusal", refusalPartMembers)
		return refusalPartType, text, unstored, err
	case slices.Contains(unstoredPartTypes, t):
		return "", "", []string{"content[]." + t}, nil
	case anthropicToolParts[t] != "":
		return "", "", nil, errors.New(" " + anthropicToolParts[t])
	}
	return "", "", nil, unknownPartType(t)
}

// partText reads the string member named member of the part p of type
// t, which has the members known (and partUnused, partIgnored), and
// names the members of partUnused that hold a value.
func partText(p json.RawMessage, t, member string, known []string) (string, []string, error) {
	var text json.RawMessage
	var unstored []string
	for k, v := range jsonkey.Members(p) {
		if err := memberFault(k, fmt.Sprintf("a %q part", t), known, slices.Concat(partUnused, partIgnored)); err != nil {
			return "", nil, fmt.Errorf(": %w", err)
		}
		switch {
		case k == member:
			text = v
		case slices.Contains(partUnused, k) && !emptyJSON(v):
			unstored = append(unstored, "content[]."+k)
		}
	}
	var s *string
	if len(text) > 0 && json.Unmarshal(text, &s) != nil {
		return "", nil, fmt.Errorf(".%s must be a string, got %s", member, valueKind(text))
	}
	if s == nil {
		return "", nil, fmt.Errorf(": %q is required in a %q part", member, t)
	}
	return *s, unstored, nil
}

// unknownPartType is the reason a part's type t is none mnemo reads,
// with the type it resembles when one does.
func unknownPartType(t string) error {
	known := slices.Concat(textPartTypes, []string{refusalPartType}, unstoredPartTypes)
	near := jsonkey.Closest(t, append(known, "tool_use", "tool_result"))
	switch {
	case strings.EqualFold(near, t):
		return fmt.Errorf(": unknown part type %q (did you mean %q? types are case-sensitive)", t, near)
	case near != "":
		return fmt.Errorf(": unknown part type %q (did you mean %q?)", t, near)
	}
	return fmt.Errorf(": unknown part type %q (mnemo stores the text of %s parts and passes over %s)",
		t, jsonkey.AndList(append(slices.Clone(textPartTypes), refusalPartType)), jsonkey.AndList(unstoredPartTypes))
}

// valueKind names the kind of the JSON value v (valid JSON): "a string",
// "a number", "true or false", "null", "an object", "a list".
func valueKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string"
	case v[0] == '{':
		return "an object"
	case v[0] == 'n':
		return "null"
	}
	return jsonKind(v)
}
