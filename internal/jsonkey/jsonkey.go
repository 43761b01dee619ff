package jsonkey

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Repeated walks data, one JSON value, and returns the first key that
// occurs twice in one object (compared byte for byte, after unescaping:
// "a" and "\u0061" are the same key) with its path: keys joined by ".",
// array elements as "[i]", e.g. "messages[1].role"; a key of the top
// object is its own path. ok is false when no object repeats a key, and
// for data that is not valid JSON (its decoder reports that).
func Repeated(data []byte) (path, key string, ok bool) {
	if !json.Valid(data) || !hasRepeated(data) { // scan.go: the fast pass
		return "", "", false
	}
	return walk(data)
}

// walk is Repeated's slow pass over valid JSON: encoding/json's tokens,
// with the path of the value being read.
func walk(data []byte) (path, key string, ok bool) {
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false // the end
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, &frame{array: t == '[', path: valuePath(stack), keys: map[string]bool{}, wantKey: t == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
			valueDone(stack)
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				f := stack[n-1]
				if f.keys[t] {
					return Join(f.path, t), t, true
				}
				f.keys[t], f.key, f.wantKey = true, t, false
				continue
			}
		}
		valueDone(stack)
	}
}

// frame is an object or array being read.
type frame struct {
	array   bool
	path    string
	keys    map[string]bool
	key     string // the object key whose value comes next
	wantKey bool   // an object expects a key (or its end) next
	index   int
}

// valuePath is the path of the value about to be read.
func valuePath(stack []*frame) string {
	if len(stack) == 0 {
		return ""
	}
	top := stack[len(stack)-1]
	if top.array {
		return fmt.Sprintf("%s[%d]", top.path, top.index)
	}
	return Join(top.path, top.key)
}

// valueDone records that a value of the top frame was read.
func valueDone(stack []*frame) {
	if len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	if top.array {
		top.index++
	} else {
		top.wantKey = true
	}
}

// Join is path's member k: "k" at the top, else path + "." + k.
func Join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
