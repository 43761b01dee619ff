package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// badField finds the field of a JSON body whose own decoding fails, for
// an error that encoding/json reports without its place (a value's
// UnmarshalJSON failing: a time that is not an RFC 3339 string, a
// malformed messageRange). data is the body, t the type it decodes into;
// the path names fields by their JSON names and array elements by index
// ("messages[1].createdAt"). It returns "" when no field alone fails.
func badField(data []byte, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" && reflect.PointerTo(t).Implements(unmarshalerType) {
		if json.Unmarshal(data, reflect.New(t).Interface()) != nil {
			return path
		}
		return ""
	}
	switch t.Kind() {
	case reflect.Struct:
		return badStructField(data, t, path)
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) != nil {
			return ""
		}
		for i, e := range elems {
			if p := badField(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// badStructField is badField for a struct: each member of the object
// against the field it fills (matched as encoding/json matches: the JSON
// name, else case-insensitively), embedded structs' fields included.
func badStructField(data []byte, t reflect.Type, path string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return ""
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			if p := badField(data, f.Type, path); p != "" {
				return p
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		for k, raw := range obj {
			if k == name || strings.EqualFold(k, name) {
				if p := badField(raw, f.Type, joinPath(path, name)); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
