package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// A tool call's arguments (ToolCall.Arguments) are the values of the
// function's parameters by name: a JSON object in every chat API
// (OpenAI's tool_calls[].function.arguments fill "parameters", a JSON
// Schema object; Ollama's api.ToolCallFunction.Arguments is a map). On
// OpenAI's wire they are a string of the JSON text the model generated,
// which is most often an object and now and then not: broken JSON, a
// list, a key given twice. mnemo stores the object itself, and a JSON
// string for text a model sent that is no such object, so the turn is
// kept as it happened. One rule reads them on every path, HTTP
// (server's POST .../messages decodes into ToolCall), Append and mnemo
// ingest (package importer): ToolCallArgumentsOf, whose string case is
// ToolCallArguments.

// ToolCallArgumentsOf returns the ToolCall.Arguments stored for v, a
// tool call's arguments as a client gave them in JSON (nil, or only white
// space, when the call left its "arguments" member out): the one rule
// Append applies to every call (so mnemo serve's POST .../messages too)
// and mnemo ingest to every call it reads.
//
//   - Left out, or JSON null: {} (no arguments; some OpenAI-compatible
//     clients leave the member out of a call to a function without
//     parameters).
//   - An object: v as given, or an error when it nests past
//     MaxArgumentsDepth. Append also refuses it when it repeats a key (at
//     any depth) or passes Limits.MaxContentBytes.
//   - A string (OpenAI sends function.arguments as one): the text the
//     model generated, read by ToolCallArguments: the object it holds
//     (white space, U+FEFF, U+200B, U+2060 around it dropped) when that
//     gives each key once; {} when it is empty, white space or "null";
//     else the model's text, kept as v, the string as given (broken
//     JSON, a list, a number, a quoted string, an object repeating a key,
//     nesting past MaxArgumentsDepth or escaping half of a UTF-16
//     surrogate pair, "{\"a\":\"\\ud800\"}": what Append refuses as an
//     object).
//   - A list, a number, true or false: an error.
//
// The error is a *ValidationError (errors.Is ErrInvalidInput) with Index
// -1 and Field "arguments", for v that is no valid UTF-8, no JSON, JSON
// with a \u escape of half a UTF-16 surrogate pair (\ud800 alone, which
// encoding/json reads as U+FFFD), an object nested past
// MaxArgumentsDepth ("nested 65 levels deep, at most 64"), or a list, a
// number, true or false; Append reports it naming the call
// (messages[i].toolCalls[j].arguments), mnemo ingest naming the record's
// field (tool_calls[j].function.arguments, or a Responses item's
// arguments). The result is a value ToolCallArgumentsOf maps to itself.
func ToolCallArgumentsOf(v json.RawMessage) (json.RawMessage, error) {
	t := bytes.Trim(v, jsonSpace)
	switch {
	case len(t) == 0 || string(t) == "null":
		return json.RawMessage("{}"), nil
	case !utf8.Valid(t): // json.Unmarshal would read it as U+FFFD
		return nil, argumentsError("must be valid UTF-8")
	case !json.Valid(t):
		return nil, argumentsError("must be valid JSON")
	}
	if off, r, ok := jsonkey.LoneSurrogate(t); ok { // json.Unmarshal would read it as U+FFFD
		return nil, argumentsError(fmt.Sprintf("must not escape half of a UTF-16 surrogate pair (\\u%04x at byte %d), which JSON readers turn into U+FFFD", r, off))
	}
	switch t[0] {
	case '{':
		if d := jsonDepth(t); d > MaxArgumentsDepth {
			return nil, argumentsError(fmt.Sprintf("nested %d levels deep, at most %d", d, MaxArgumentsDepth))
		}
		return v, nil
	case '"':
		var s string
		_ = json.Unmarshal(t, &s) // valid JSON: cannot fail
		if a, ok := textArguments(s); ok {
			return a, nil
		}
		return v, nil
	case '[':
		return nil, argumentsError("must be a JSON object (or a string holding a model's text that is not one), got a list")
	case 't', 'f':
		return nil, argumentsError("must be a JSON object (or a string holding a model's text that is not one), got true or false")
	}
	return nil, argumentsError("must be a JSON object (or a string holding a model's text that is not one), got a number")
}

// jsonSpace is JSON's white space (RFC 8259), which may stand around a
// value.
const jsonSpace = " \t\r\n"

// argumentsError is ToolCallArgumentsOf's error: rule broken by the
// arguments, a field the caller renames.
func argumentsError(rule string) error {
	return &ValidationError{Index: -1, Field: "arguments", Rule: rule}
}

// ToolCallArguments returns the ToolCall.Arguments to store for text, the
// arguments a model sent as OpenAI's function.arguments string: the JSON
// object text holds when it is one Append stores (each key once, at
// most MaxArgumentsDepth levels, no half of a UTF-16 surrogate pair
// escaped; leading and trailing white space and byte-order marks
// dropped), {} when text is empty, only
// white space or "null" (a call without arguments), else text as a JSON
// string (broken JSON, a list, a number, an object repeating a key or
// nesting too deep), which Append keeps as the model's text. It
// is the string case of ToolCallArgumentsOf: Append stores a string
// holding text as ToolCallArguments(text) reads it, and the result of
// ToolCallArguments as it is.
func ToolCallArguments(text string) json.RawMessage {
	if a, ok := textArguments(text); ok {
		return a
	}
	b, _ := json.Marshal(text) // a string: cannot fail
	return b
}

// textArguments returns the arguments text holds, with ok, when it holds
// some: the object of trimmed text that Append stores, or {} for
// empty text and "null". ok is false for the text of a model that is no
// such object, which is stored as a string.
func textArguments(text string) (_ json.RawMessage, ok bool) {
	t := []byte(trimArguments(text))
	switch {
	case len(t) == 0 || string(t) == "null":
		return json.RawMessage("{}"), true
	case isArgumentsObject(t):
		return json.RawMessage(t), true
	}
	return nil, false
}

// trimArguments is text without the characters around its JSON text that
// the arguments rule looks through: white space (unicode.IsSpace: JSON's
// space, tab, line feed and carriage return, and the rest of Unicode's,
// U+00A0 and U+3000 among them) and the invisible characters an editor,
// a Windows tool or a copy puts before text: a byte-order mark (U+FEFF),
// a zero-width space (U+200B), a word joiner (U+2060). "\ufeff{\"a\":1}"
// is the object {"a":1} to ToolCallArguments; before, the mark made it
// pass as a model's text that is no object (bytes.TrimSpace keeps it).
func trimArguments(text string) string {
	return strings.TrimFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '\ufeff' || r == '\u200b' || r == '\u2060'
	})
}

// isArgumentsObject reports whether t, JSON text without leading white
// space, is an object that Append stores: one that gives each key once,
// nests at most MaxArgumentsDepth levels and escapes no half of a UTF-16
// surrogate pair (which ToolCallArgumentsOf refuses in an object:
// "{\"a\":\"\\ud800\"}" is a model's text, kept as the string).
func isArgumentsObject(t []byte) bool {
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) || jsonDepth(t) > MaxArgumentsDepth {
		return false
	}
	if _, _, lone := jsonkey.LoneSurrogate(t); lone {
		return false
	}
	_, _, repeated := jsonkey.Repeated(t)
	return !repeated
}

// storeArguments gives each tool call of msgs the arguments
// ToolCallArgumentsOf reads in what it was given (left out or null: {};
// a string holding an object: the object), leaving those it refuses for
// checkArguments to name in the request's order. msgs is an append's
// own copy of the caller's slice: a message's ToolCalls are copied
// before one is changed, so the caller's calls are never written.
func storeArguments(msgs []Message) {
	for i := range msgs {
		copied := false
		for j, tc := range msgs[i].ToolCalls {
			a, err := ToolCallArgumentsOf(tc.Arguments)
			if err != nil || bytes.Equal(a, tc.Arguments) {
				continue
			}
			if !copied {
				msgs[i].ToolCalls = slices.Clone(msgs[i].ToolCalls)
				copied = true
			}
			msgs[i].ToolCalls[j].Arguments = a
		}
	}
}

// MaxArgumentsDepth bounds the nesting depth of tool-call arguments. Model
// tool calls are shallow; deep nesting only costs recursion in every later
// reader (redaction, rendering, providers).
const MaxArgumentsDepth = 64

// checkArguments checks a tool call's arguments a, named field of message
// i, as storeArguments left them: what ToolCallArgumentsOf accepts
// (valid UTF-8 without NUL, JSON, an object within MaxArgumentsDepth or
// a string) within the size bound, an object giving each key once at any
// depth (as working memory and metadata refuse a key given twice), and no
// string or key holding U+0000 (escapesNUL).
func (e *Engine) checkArguments(i int, field string, a json.RawMessage) error {
	if err := checkText(i, field, string(a)); err != nil {
		return err
	}
	if _, err := ToolCallArgumentsOf(a); err != nil {
		var ve *ValidationError
		errors.As(err, &ve)
		return invalid(i, field, "%s", ve.Rule)
	}
	if len(a) > e.limits.MaxContentBytes {
		return invalid(i, field, "at most %d bytes", e.limits.MaxContentBytes)
	}
	if path, _, ok := jsonkey.Repeated(a); ok {
		return invalid(i, field, "%q is given twice in one object; give each member once (engine.ToolCallArguments keeps a model's text that repeats a key as a string)", path)
	}
	if escapesNUL(a) {
		return invalid(i, field, `must not contain NUL characters (\u0000 in a string or key), as content and metadata must not`)
	}
	return nil
}

// escapesNUL reports whether the JSON text a, valid, holds a string or key
// with U+0000 (written \u0000): the escape leaves checkText nothing to
// see, and Postgres refuses it when it reads the stored calls as jsonb,
// which it does to pair every later call of the thread.
func escapesNUL(a json.RawMessage) bool {
	if !bytes.Contains(a, []byte(`\u0000`)) { // an escaped backslash before "u0000" matches too: decode to be sure
		return false
	}
	var v any
	if json.Unmarshal(a, &v) != nil {
		return false
	}
	return holdsNUL(v)
}

// holdsNUL reports whether a decoded JSON value holds a string or key with
// U+0000.
func holdsNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.IndexByte(t, 0) >= 0
	case map[string]any:
		for k, x := range t {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(x) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(t, holdsNUL)
	}
	return false
}
