package jsonkey

// MaxDepth is the deepest nesting of arrays and objects encoding/json
// reads: 10,000 levels. It reports a deeper value, well-formed or not, as a
// *json.SyntaxError ("exceeded max depth"); the HTTP API refuses such a
// body naming this limit.
const MaxDepth = 10000

// DeeperThan reports whether data opens more than max arrays or objects
// one inside another, and if so the byte offset of the '[' or '{' that
// opens level max+1. It reads bytes only, skipping the contents of strings
// (with their escapes): data need not be valid JSON, and an unbalanced
// closing bracket counts as closing nothing. One pass, no allocation.
func DeeperThan(data []byte, max int) (offset int64, ok bool) {
	depth, inString, escaped := 0, false, false
	for i, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString:
			escaped, inString = b == '\\', b != '"'
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			if depth++; depth > max {
				return int64(i), true
			}
		case (b == ']' || b == '}') && depth > 0:
			depth--
		}
	}
	return 0, false
}
