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

// UnmarshalJSON keeps a string or an object as sent (numbers as
// written); null is nil. Another JSON value is a *json.UnmarshalTypeError
// (the API's 400 `"content" must be a JSON string or object, not an
// array`): no state of either mode is one.
func (c *StateContent) UnmarshalJSON(b []byte) error {
	v := bytes.TrimLeft(b, " \t\r\n")
	switch {
	case string(v) == "null":
		*c = nil
		return nil
	case len(v) > 0 && (v[0] == '"' || v[0] == '{'):
		*c = append((*c)[:0], v...)
		return nil
	}
	return &json.UnmarshalTypeError{Value: typeErrorValue(v), Type: stateContentType}
}

// typeErrorValue is encoding/json's name of the JSON type of v, neither
// a string nor an object, in an *json.UnmarshalTypeError.
func typeErrorValue(v []byte) string {
	switch {
	case len(v) > 0 && v[0] == '[':
		return "array"
	case len(v) > 0 && (v[0] == 't' || v[0] == 'f'):
		return "bool"
	}
	return "number"
}

// MarshalJSON writes the value as sent; nil is null.
func (c StateContent) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return c, nil
}

// text is the state's text c gives in a memory of mode: a string's
// value, or in schema mode an object's JSON text (working.Memory.Set
// validates it as it would that text in a string). An object in template
// mode is a 400 naming content: the state is a markdown document.
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
	return "", errorf(kindInvalid, "content", `"content" must be a JSON string in template mode (the markdown document), not an object`)
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
