package jsonkey

import (
	"bytes"
	"encoding/json"
)

// maxLinearKeys is how many keys an object compares a new key against one
// by one before it keeps them in a map.
const maxLinearKeys = 16

// object is an object (or, isObj false, an array) being scanned.
type object struct {
	isObj   bool
	wantKey bool     // the next string is a key
	keys    [][]byte // its keys so far (until maxLinearKeys)
	set     map[string]struct{}
}

// seen records k in o and reports whether o already named it.
func (o *object) seen(k []byte) bool {
	if o.set != nil {
		if _, ok := o.set[string(k)]; ok {
			return true
		}
		o.set[string(k)] = struct{}{}
		return false
	}
	for _, p := range o.keys {
		if bytes.Equal(p, k) {
			return true
		}
	}
	o.keys = append(o.keys, k)
	if len(o.keys) > maxLinearKeys {
		o.set = make(map[string]struct{}, 2*maxLinearKeys)
		for _, p := range o.keys {
			o.set[string(p)] = struct{}{}
		}
	}
	return false
}

// hasRepeated reports whether one object of data, which must be valid JSON
// (json.Valid), names a key twice. It is Repeated's fast first pass: one
// scan of the bytes, no token values built, the path left to the slow
// pass that only a repeated key pays for (encoding/json's Decoder.Token
// cost 16–30 µs on a 140-byte message, 3–6 times its decoding).
func hasRepeated(data []byte) bool {
	var stack []object
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			stack = append(stack, object{isObj: data[i] == '{', wantKey: data[i] == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if n := len(stack); n > 0 && stack[n-1].isObj {
				stack[n-1].wantKey = true
			}
		case '"':
			end, decode := stringEnd(data, i)
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				stack[n-1].wantKey = false
				if stack[n-1].seen(keyBytes(data[i:end+1], decode)) {
					return true
				}
			}
			i = end
		}
	}
	return false
}

// stringEnd returns the index of the quote that closes the string opening
// at data[start], and whether the string must be decoded to compare it
// as the slow pass does: it holds an escape, or a byte of a multi-byte
// (or invalid) UTF-8 sequence, which the decoder may replace by U+FFFD.
func stringEnd(data []byte, start int) (end int, decode bool) {
	for end = start + 1; data[end] != '"'; end++ {
		switch {
		case data[end] == '\\':
			decode = true
			end++
		case data[end] >= 0x80:
			decode = true
		}
	}
	return end, decode
}

// keyBytes is the key that quoted, a JSON string with its quotes, names:
// its bytes, decoded when it must be ("\u0061" is "a").
func keyBytes(quoted []byte, decode bool) []byte {
	if !decode {
		return quoted[1 : len(quoted)-1]
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return quoted
	}
	return []byte(s)
}
