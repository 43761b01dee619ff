package server

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/mnemo-go/mnemo/working"
)

// StateContent is the content member of PUT …/working-memory as sent, a
// JSON value: a string is the state's text in either mode (a JSON object's
// text in schema mode, the markdown document in template mode); in schema
// mode an object is the state itself, stored as its JSON text (validated,
// and normalized, as that text in a string would be). nil is the member
// left out or null. TextContent makes the string form.
type StateContent []byte

// TextContent is the content of text, the state's text as a JSON string.
func TextContent(text string) StateContent {
	b, _ := json.Marshal(text) // a string always marshals
	return b
}

// UnmarshalJSON keeps the value as sent (numbers as written); null is nil.
func (c *StateContent) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = nil
		return nil
	}
	*c = append((*c)[:0], b...)
	return nil
}

// MarshalJSON writes the value as sent; nil is null.
func (c StateContent) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return c, nil
}

// text is the state's text c gives in a memory of mode: a string's
// value, or in schema mode another JSON value's text (working.Memory.Set
// refuses one that is not an object, naming content). Another value in
// template mode is a 400 naming content: the state is a markdown
// document.
func (c StateContent) text(mode working.Mode) (string, error) {
	v := bytes.TrimLeft(c, " \t\r\n")
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", errorf(kindInvalid, "content", "content is not a JSON string: %v", err)
		}
		return s, nil
	}
	if mode == working.ModeSchema {
		return string(v), nil
	}
	return "", errorf(kindInvalid, "content", `"content" must be a JSON string in template mode (the markdown document), not %s`, valueKind(v))
}

// valueKind names the JSON type of the value v begins with, with its
// article: "an object", "an array", "a number", "a boolean".
func valueKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// stateContentSchema is StateContent in /openapi.json: a string, in
// schema mode an object, or null (left out).
func stateContentSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "the whole new state: its text as a JSON string in either mode (a JSON object's text in schema mode, the markdown document in template mode), or in schema mode the JSON object itself; null or left out: patch applies",
		OneOf:       []*jsonschema.Schema{{Type: "string"}, {Type: "object"}, {Type: "null"}},
	}
}

var stateContentType = reflect.TypeFor[StateContent]()
