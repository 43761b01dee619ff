package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// caseVariant finds a member of the JSON body data, which decoded into a
// value of type t, whose name matches a field only under case folding
// ("threadid" or "ThreadID" for "threadId"): encoding/json takes it, the
// API's documented names (and the MCP tools' schemas) do not. It returns
// the member's path ("messages[0].Role") and the field's name, or "" when
// every member is named exactly. Maps' keys (metadata) are data, not
// names. A type that decodes itself is looked into only when it is a
// struct given as an object (recall.Range: {"before": B, "after": A},
// decoded into its own fields); a time, raw JSON or a string type is not.
func (w *memberWalk) caseVariant(data []byte, t reflect.Type, path string) (member, field string) {
	if w.stop() {
		return "", ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" && t.Kind() != reflect.Struct && reflect.PointerTo(t).Implements(unmarshalerType) {
		return "", ""
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return "", ""
		}
		fields := structFields(t)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f := fieldFor(fields, k)
			switch {
			case f == nil:
			case f.name != k:
				return joinPath(path, k), f.name
			default:
				if m, n := w.caseVariant(obj[k], f.typ, joinPath(path, k)); m != "" {
					return m, n
				}
			}
		}
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) != nil {
			return "", ""
		}
		for i, e := range elems {
			if m, n := w.caseVariant(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); m != "" {
				return m, n
			}
		}
	}
	return "", ""
}
