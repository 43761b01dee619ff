package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

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
// kept as it happened (ToolCallArguments maps one to the other).

// ToolCallArguments returns the ToolCall.Arguments to store for text, the
// arguments a model sent as OpenAI's function.arguments string: the JSON
// object text holds when it is one that gives each key once (leading and
// trailing white space and byte-order marks dropped: trimArguments), else
// text as a JSON string (broken JSON, a list, a number, an object
// repeating a key), which Append keeps as the model's text. Empty text
// (or only white space) and "null" give {}, as for a call without
// arguments: Append stores null arguments as {}, and mnemo ingest reads
// both so.
func ToolCallArguments(text string) json.RawMessage {
	t := []byte(trimArguments(text))
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	if isArgumentsObject(t) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(text) // a string: cannot fail
	return b
}

// trimArguments is text without the characters around its JSON text that
// the arguments rule looks through: white space (unicode.IsSpace: JSON's
// space, tab, line feed and carriage return, and the rest of Unicode's,
// U+00A0 and U+3000 among them) and the invisible characters an editor,
// a Windows tool or a copy puts before text: a byte-order mark (U+FEFF),
// a zero-width space (U+200B), a word joiner (U+2060). "\ufeff{\"a\":1}"
// is the object {"a":1} to ToolCallArguments, and a string holding it is
// refused by Append as one holding "{\"a\":1}" is; before, the mark made
// it pass as a model's text that is no object (bytes.TrimSpace keeps it).
func trimArguments(text string) string {
	return strings.TrimFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '\ufeff' || r == '\u200b' || r == '\u2060'
	})
}

// isArgumentsObject reports whether t, JSON text without leading white
// space, is an object that gives each key once.
func isArgumentsObject(t []byte) bool {
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return false
	}
	_, _, repeated := jsonkey.Repeated(t)
	return !repeated
}

// nullArgumentsAsNone gives {} to each tool call of msgs whose arguments
// are JSON null (JSON white space around it allowed): null means no
// arguments, as OpenAI's "{}" for a function without parameters, and
// mnemo ingest reads null (and empty arguments) as {}; HTTP and Append
// refused it. msgs is an append's own copy of the caller's slice: a
// message's ToolCalls are copied before one is changed, so the caller's
// calls are never written.
func nullArgumentsAsNone(msgs []Message) {
	for i := range msgs {
		copied := false
		for j, tc := range msgs[i].ToolCalls {
			if string(bytes.Trim(tc.Arguments, " \t\r\n")) != "null" {
				continue
			}
			if !copied {
				msgs[i].ToolCalls = slices.Clone(msgs[i].ToolCalls)
				copied = true
			}
			msgs[i].ToolCalls[j].Arguments = json.RawMessage("{}")
		}
	}
}

// MaxArgumentsDepth bounds the nesting depth of tool-call arguments. Model
// tool calls are shallow; deep nesting only costs recursion in every later
// reader (redaction, rendering, providers).
const MaxArgumentsDepth = 64

// checkArguments checks a tool call's arguments a, named field of message
// i (null was made {} before: nullArgumentsAsNone): bounded valid JSON
// text that is an object giving each key once (as
// working memory and metadata refuse a key given twice), or a string
// whose text is no such object. A string holding one is refused: it is
// OpenAI's function.arguments passed on undecoded, which was stored as a
// string and shown to the model as one ("{\"a\":1}" for {"a":1}).
func (e *Engine) checkArguments(i int, field string, a json.RawMessage) error {
	if len(a) == 0 {
		return invalid(i, field, "is required (use {} for none)")
	}
	if err := checkText(i, field, string(a)); err != nil {
		return err
	}
	if !json.Valid(a) {
		return invalid(i, field, "must be valid JSON")
	}
	if kind := argumentsKind(a); kind != "" {
		return invalid(i, field, "must be a JSON object (or a string holding a model's text that is not one), got %s", kind)
	}
	if d := jsonDepth(a); d > MaxArgumentsDepth {
		return invalid(i, field, "nested %d levels deep, at most %d", d, MaxArgumentsDepth)
	}
	if len(a) > e.limits.MaxContentBytes {
		return invalid(i, field, "at most %d bytes", e.limits.MaxContentBytes)
	}
	if path, _, ok := jsonkey.Repeated(a); ok {
		return invalid(i, field, "%q is given twice in one object; give each member once (engine.ToolCallArguments keeps a model's text that repeats a key as a string)", path)
	}
	if holdsArgumentsObject(a) {
		return invalid(i, field, "is a string holding a JSON object; give the object itself (OpenAI's function.arguments is such a string: engine.ToolCallArguments decodes it)")
	}
	return nil
}

// holdsArgumentsObject reports whether a, valid JSON, is a string whose
// text is an object that gives each key once.
func holdsArgumentsObject(a json.RawMessage) bool {
	a = bytes.TrimLeft(a, " \t\r\n")
	var s string
	if a[0] != '"' || json.Unmarshal(a, &s) != nil {
		return false
	}
	return isArgumentsObject([]byte(trimArguments(s)))
}

// argumentsKind names the kind of the arguments a (valid JSON) when they
// are neither an object nor a string ("a list", "a number", "true or
// false", "null": Append makes null {} before it asks), else "". Before,
// [1] and 3 were stored as arguments.
func argumentsKind(a json.RawMessage) string {
	a = bytes.TrimLeft(a, " \t\r\n")
	switch a[0] {
	case '{', '"':
		return ""
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}
