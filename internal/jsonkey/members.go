package jsonkey

import (
	"bytes"
	"iter"
)

// Members yields the members of the JSON object data in the order it
// gives them: each key (unescaped: "\u0052ole" is "Role") with its value's
// bytes, a subslice of data. data must be valid JSON (json.Valid); a value
// that is not an object yields nothing. It is one scan of the bytes, with
// no value decoded or copied, for a reader that checks a record's member
// names before decoding it (importer: JSONL lines, where a
// map[string]json.RawMessage cost about as much as the decoding).
func Members(data []byte) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		data := bytes.TrimSpace(data)
		if len(data) < 2 || data[0] != '{' {
			return
		}
		depth, wantKey, start := 0, false, -1
		var key []byte
		for i := 0; i < len(data); i++ {
			switch data[i] {
			case '{', '[':
				depth++
				wantKey = depth == 1
			case '}', ']', ',':
				if depth == 1 && start >= 0 {
					if !yield(string(key), bytes.TrimSpace(data[start:i])) {
						return
					}
					start = -1
				}
				if data[i] == ',' {
					wantKey = depth == 1
				} else {
					depth--
				}
			case ':':
				if depth == 1 {
					start = i + 1
				}
			case '"':
				end, decode := stringEnd(data, i)
				if depth == 1 && wantKey {
					key, wantKey = keyBytes(data[i:end+1], decode), false
				}
				i = end
			}
		}
	}
}
