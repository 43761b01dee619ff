package tools

import (
	"bytes"
	"encoding/json"
)

// RecalledObservationIDs returns the ids of the observations a recorded
// recallObservations result lists, each once, in the order of their first
// mention; nil for the result of another tool, a failure result, or one
// that is not such JSON. An erasure deletes the recorded results that list
// an observation it invalidated (journal.ForgetToolResults).
//
// It is the definition the schema's links follow (journal_tool_obs: the
// trigger of SQLite's migration 18 and Postgres's recalled_obs_ids,
// migration 16, compared with it by FuzzRecalledLinks), so it reads
// exactly what both databases' SQL can read alike:
//
//   - result holds the bytes "observations" (the triggers' filter), is
//     one JSON text (RFC 8259: json.Valid; bytes of a string are not
//     checked as UTF-8) nested at most MaxRecalledDepth deep (SQLite's
//     JSON limit), and its top level is an object;
//   - every member of that object whose key is exactly "observations"
//     (duplicates included, keys compared after their escapes are read,
//     case kept) whose value is an array: every element that is an object;
//   - every member of such an element whose key is exactly "id" and whose
//     value is a string, kept when it is 1 or more characters of printable
//     ASCII (U+0020 to U+007E) but backslash.
//
// Observation and reflection ids are ULIDs (26 characters of [0-9A-Z]), so
// an id refused by the last rule (a NUL, a lone surrogate, a byte that is
// not UTF-8, non-ASCII text) is never one an erasure looks for, and the
// databases read such strings differently (Postgres refuses U+0000 and
// lone surrogates in text; SQLite keeps bytes that are not UTF-8).
func RecalledObservationIDs(result []byte) []string {
	if !bytes.Contains(result, []byte(`"observations"`)) || !json.Valid(result) || jsonDepth(result) > MaxRecalledDepth {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(result))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "observations" {
			if skipValue(dec) != nil {
				return nil
			}
			continue
		}
		found, err := observationsIDs(dec)
		if err != nil {
			return nil
		}
		for _, id := range found {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// MaxRecalledDepth is the deepest nesting of arrays and objects a result
// RecalledObservationIDs reads may have: SQLite's JSON functions refuse a
// text nested deeper than 1,000 (json_valid answers 0).
const MaxRecalledDepth = 1000

// observationsIDs reads the value of an "observations" member from dec:
// the ids of an array's object elements (none for another value).
func observationsIDs(dec *json.Decoder) ([]string, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		return nil, nil // not an array
	}
	var ids []string
	for _, e := range elems {
		ids = append(ids, elementIDs(e)...)
	}
	return ids, nil
}

// elementIDs returns the string ids of element e of an "observations"
// array, every "id" member (duplicates too) that recalledID keeps; none
// when e is not an object.
func elementIDs(e json.RawMessage) []string {
	e = bytes.TrimSpace(e)
	if len(e) == 0 || e[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(e))
	dec.UseNumber() // a number is skipped, never converted: 1e999 is JSON
	dec.Token()     // {
	var ids []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ids
		}
		v, err := dec.Token() // a scalar, or the delimiter opening one
		if err != nil {
			return ids
		}
		if d, ok := v.(json.Delim); ok {
			if skipRest(dec, d) != nil {
				return ids
			}
			continue
		}
		if s, ok := v.(string); ok && k == "id" && recalledID(s) {
			ids = append(ids, s)
		}
	}
	return ids
}

// recalledID reports whether s may be an observation id: 1 or more
// characters, each printable ASCII but backslash.
func recalledID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return s != ""
}

// skipValue reads and drops the next value of dec.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// skipRest drops the rest of the array or object whose opening delimiter
// d dec just returned.
func skipRest(dec *json.Decoder, d json.Delim) error {
	if d != '[' && d != '{' {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
	return nil
}

// jsonDepth is the deepest nesting of arrays and objects in the valid JSON
// text b (1 for {"a":1}).
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
