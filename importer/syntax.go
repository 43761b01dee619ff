package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// syntaxReason is the reason of a JSONL record that is not JSON: se's
// text with the column of the byte it stopped at (1-based, lead the
// bytes before b on the file's line: blanks and a byte-order mark) and,
// when one was read before that byte, the path of the last member key
// ("after \"metadata.k\""). A record that starts with a byte-order mark
// (only the first line's is skipped) says so, where encoding/json names
// the mark's first byte as Latin-1, 'ï'.
func syntaxReason(b []byte, lead int, se *json.SyntaxError) error {
	col := int64(lead) + se.Offset
	if se.Offset == 1 && bytes.HasPrefix(b, []byte("\ufeff")) {
		return fmt.Errorf("invalid record at column %d: a byte-order mark (U+FEFF), which only a file's first line may start with (files joined by cat?): remove it", col)
	}
	text := jsonkey.NamedSyntax(b, se) // '\u00a0' (U+00A0), where encoding/json says 'Â'
	if key := keyBefore(b, se.Offset); key != "" {
		return fmt.Errorf("invalid record at column %d (after %q): %w", col, key, text)
	}
	return fmt.Errorf("invalid record at column %d: %w", col, text)
}

// keyBefore returns the path of the last object key read in b before its
// byte at offset (1-based): keys joined by ".", array elements as "[i]"
// ("tool_calls[0].function"); "" when no key comes before it. It reads
// b's tokens up to that byte, so it costs one more pass over the bad
// record only.
func keyBefore(b []byte, offset int64) string {
	if offset < 1 || offset > int64(len(b)) {
		return ""
	}
	type frame struct {
		path    string // the object's or array's own path
		array   bool
		index   int
		key     string
		wantKey bool
	}
	var stack []*frame
	last := ""
	// valuePath is the path of the value about to be read.
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.array {
			return clipPath(f.path + "[" + strconv.Itoa(f.index) + "]")
		}
		return join(f.path, f.key)
	}
	valueDone := func() {
		if n := len(stack); n > 0 {
			if f := stack[n-1]; f.array {
				f.index++
			} else {
				f.wantKey = true
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b[:offset-1]))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return last
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, &frame{path: valuePath(), array: t == '[', wantKey: t == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				f := stack[n-1]
				f.key, f.wantKey = t, false
				last = join(f.path, t)
				continue
			}
		}
		valueDone()
	}
}

// join is path's member k: "k" at the top, else path + "." + k, cut
// short by clipPath.
func join(path, k string) string {
	if path == "" {
		return clipPath(k)
	}
	return clipPath(path + "." + k)
}

// maxKeyPath is the most bytes of a key path a syntax error says; a
// longer one ends in "…" there. Each level of nesting holds its own path,
// so without a bound a line of deeply nested objects with long keys
// costs the square of its length (a 1.26 MB line, 12,000 objects deep
// with 100-byte keys, ran ingest out of memory).
const maxKeyPath = 256

// clipPath is path cut to maxKeyPath bytes (at a rune's start) and "…"
// when it is longer; a path already cut and then joined to is cut to the
// same (its "…" starts at or before the cut).
func clipPath(path string) string {
	if len(path) <= maxKeyPath {
		return path
	}
	n := maxKeyPath
	for n > 0 && !utf8.RuneStart(path[n]) {
		n--
	}
	return path[:n] + "…"
}

// typeReason says what is wrong with a member of the wrong JSON type in
// the file's words: "\"thread\" must be a string, got a number" (te.Field
// is the member's path within the value decoded); "" when te names no
// member (the value decoded is itself of the wrong type). A number out of
// range (te.Value "number 1e999") is said as one: the member named may
// be an object or list that holds it (metadata, at any depth).
func typeReason(te *json.UnmarshalTypeError) string {
	if te.Field == "" {
		return ""
	}
	if n, ok := strings.CutPrefix(te.Value, "number "); ok {
		return fmt.Sprintf("%q holds the number %s, out of the range of a 64-bit float", te.Field, n)
	}
	return fmt.Sprintf("%q must be %s, got %s", te.Field, jsonType(te.Type), jsonValue(te.Value))
}

// hugeNumber is a number in v (a value decoded with UseNumber)
// that a float64 cannot hold, as written ("1e999"); "" when none is. Such a
// number was refused by the float64 decoding it replaces (typeReason).
func hugeNumber(v any) string {
	switch t := v.(type) {
	case json.Number:
		if _, err := t.Float64(); err != nil {
			return string(t)
		}
	case map[string]any:
		for _, x := range t {
			if n := hugeNumber(x); n != "" {
				return n
			}
		}
	case []any:
		for _, x := range t {
			if n := hugeNumber(x); n != "" {
				return n
			}
		}
	}
	return ""
}

// jsonType is the JSON type a Go type decodes from: "a string", "an
// object", "a list", "a number", "true or false".
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// jsonValue names the JSON value encoding/json found (its
// UnmarshalTypeError.Value: "number", "array", "object", "string", "bool",
// or "number 1e999" for one out of range).
func jsonValue(v string) string {
	if name, ok := jsonValues[v]; ok {
		return name
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return "the number " + n + ", out of range"
	}
	return v
}

var jsonValues = map[string]string{
	"number": "a number", "string": "a string", "object": "an object", "array": "a list", "bool": "true or false",
}
