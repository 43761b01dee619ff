package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// NullOrMissing finds a member of the JSON object data that is null where
// the Go field it fills is not a pointer, slice or interface (a JSON
// schema inferred from t refuses that null), or a member missing that t
// requires (a field whose tag has no omitempty or omitzero), for a reader
// whose schema would refuse either in its own words (mnemo's MCP tools:
// `validating /properties/topK: type: <invalid reflect.Value> has type
// "null", want "integer"`, `validating root: required: missing
// properties: ["query"]`). Objects in arrays of structs are searched, not
// maps' members (a working-memory patch's null deletes a field). It
// returns the member's path and the API's wording: `"topK" must be a JSON
// number, not null`, `messages[0].role is required`; "", "" when there is
// none or data is not an object.
func NullOrMissing(data []byte, t reflect.Type) (path, detail string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", ""
	}
	return unboundedWalk().nullOrMissing(data, t, "", true)
}

// NullMember is NullOrMissing's null half: the path and wording of a
// member of the JSON object data that is null where the Go field of t it
// fills is not a pointer, slice or interface; "", "" when there is none.
// Every HTTP API body is checked with it, so that a null is refused
// there as the MCP tools refuse it (`"recall.topK" must be a JSON number,
// not null`), where encoding/json left the field as it was and the route
// took its default; a missing member is the route's to judge.
func NullMember(data []byte, t reflect.Type) (path, detail string) {
	return unboundedWalk().nullMember(data, t)
}

// nullMember is NullMember on walk w.
func (w *memberWalk) nullMember(data []byte, t reflect.Type) (path, detail string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", ""
	}
	return w.nullOrMissing(data, t, "", false)
}

// nullOrMissing searches data, the object at path of struct type t, for
// a refused null and, when missing is set, a missing required member.
func (w *memberWalk) nullOrMissing(data []byte, t reflect.Type, path string, missing bool) (string, string) {
	if w.stop() {
		return "", ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return "", ""
	}
	for _, f := range structFields(t) {
		p := joinPath(path, f.name)
		raw, ok := memberFor(obj, f)
		switch {
		case !ok && !f.omit && missing:
			return p, p + " is required"
		case !ok:
			continue
		case isNull(raw) && !nullable(f.typ):
			return p, fmt.Sprintf("%s must be a JSON %s, not null", fieldName(p), jsonKind(f.typ))
		}
		if q, d := w.nullOrMissingIn(raw, f.typ, p, missing); q != "" {
			return q, d
		}
	}
	return "", ""
}

// nullOrMissingIn searches raw, the member at path p of Go type t, when it
// is an object of a struct or an array of them.
func (w *memberWalk) nullOrMissingIn(raw json.RawMessage, t reflect.Type, p string, missing bool) (string, string) {
	if w.stop() {
		return "", ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return "", ""
	}
	switch t.Kind() {
	case reflect.Struct:
		return w.nullOrMissing(raw, t, p, missing)
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return "", ""
		}
		for i, e := range elems {
			if q, d := w.nullOrMissingIn(e, t.Elem(), fmt.Sprintf("%s[%d]", p, i), missing); q != "" {
				return q, d
			}
		}
	}
	return "", ""
}

// memberFor is the member of obj that fills field f, matched as
// encoding/json matches (fieldFor).
func memberFor(obj map[string]json.RawMessage, f jsonField) (json.RawMessage, bool) {
	if raw, ok := obj[f.name]; ok {
		return raw, true
	}
	for k, raw := range obj {
		if fieldFor([]jsonField{f}, k) != nil {
			return raw, true
		}
	}
	return nil, false
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// nullable reports whether a JSON schema inferred from t takes null, as
// google/jsonschema-go infers one (the MCP SDK's): a pointer or a slice
// does, and an interface takes any value. A pointer to a time does not:
// the MCP tools take a time as a string ("at"), which refuses null, and
// the API's *time.Time read null as left out (the server clock).
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer:
		return t.Elem() != timeType
	case reflect.Slice, reflect.Interface:
		return true
	}
	return false
}

var timeType = reflect.TypeFor[time.Time]()
