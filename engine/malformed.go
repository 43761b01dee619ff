package engine

import (
	"encoding/json"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// Malformed holds, as stored, the columns of a message that do not read
// as their types: a row written outside mnemo (an import by SQL, a
// hand-made fix) or a value damaged on disk. Reads never fail on them
// (every message mnemo writes reads whole, and its Malformed is nil);
// mnemo check --full names a column that is not JSON at all as garbled.
type Malformed struct {
	// ToolCalls is the stored tool_calls when it is not a JSON array of
	// calls each an object with a string "id" and "name", neither empty:
	// not JSON, another JSON value, an element of another shape. Message.ToolCalls then holds the elements that are objects
	// with a string "id", as message_calls indexes them (the calls a tool
	// message may answer), each with its "name" when a string and its
	// "arguments" as stored; "" when the column read whole.
	ToolCalls string `json:"toolCalls,omitempty"`
	// Metadata is the stored metadata when it is not a JSON object (not
	// JSON, an array, a string…); Message.Metadata is nil then. "" when
	// it read whole.
	Metadata string `json:"metadata,omitempty"`
}

// decodeToolCalls decodes a stored tool_calls column into the calls that
// message_calls' triggers index (SQLite's and Postgres's): the elements of
// a JSON array that are objects with a string "id". whole is false when
// the column is anything else than an array of such objects with a
// string "name", neither empty (as Append writes them; JSON null is no
// call): not JSON or not an array (no call), an element of another shape
// (left out), a name missing or of another type (read as ""). It
// fails no read of its thread (a context, a page, an export, a search, a
// replay, the observer, a reindex): a column json.Unmarshal refused was
// an error naming the message, which no read of the thread got past, and
// [{"id":7}] read as no call while message_calls held the well-formed
// elements of a mixed array. A member whose name is "id" or "name" in
// another case ("ID"), or that an element names twice, is not whole
// either (plainKeys): encoding/json matches names in any case and keeps
// the last of two, the triggers match exactly; an element naming "id"
// twice gives its last, as Postgres's trigger indexes it (SQLite's
// indexes the first).
func decodeToolCalls(stored string) (calls []ToolCall, whole bool) {
	if json.Unmarshal([]byte(stored), &calls) == nil && named(calls) && plainKeys(stored, len(calls)) {
		return calls, true // what Append writes
	}
	var elems []json.RawMessage
	if json.Unmarshal([]byte(stored), &elems) != nil {
		return nil, false
	}
	calls = make([]ToolCall, 0, len(elems))
	for _, el := range elems {
		if c, ok := looseCall(el); ok {
			calls = append(calls, c)
		}
	}
	return calls, false
}

// callKeys are the member names of a call that message_calls' triggers
// and Message.ToolCalls read, as Append writes them.
var callKeys = [...]string{"id", "name"}

// quotedKeys are callKeys quoted, as a JSON text spells them.
var quotedKeys = [...]string{`"id"`, `"name"`}

// plainKeys reports whether each of the n elements of the JSON array
// stored names each of callKeys at most once and spelt exactly so (not
// "ID", "Name"), as Append writes them: only then does encoding/json,
// which matches a name in any case and keeps the last of two, read the
// "id" the triggers read (json_extract, ->>: exact names). A text with no
// \u escape that holds each, quoted, n times and in no other case is so
// (every element names each: named): one scan, no decoding.
func plainKeys(stored string, n int) bool {
	if !strings.Contains(stored, `\u`) && quotedOnly(stored, n) {
		return true
	}
	var elems []json.RawMessage
	if json.Unmarshal([]byte(stored), &elems) != nil {
		return false
	}
	for _, el := range elems {
		var seen [len(callKeys)]bool
		for k := range jsonkey.Members(el) {
			for i, want := range callKeys {
				if strings.EqualFold(k, want) {
					if k != want || seen[i] {
						return false
					}
					seen[i] = true
				}
			}
		}
	}
	return true
}

// quotedOnly reports whether s holds each of quotedKeys n times, and no
// other case of it ("ID").
func quotedOnly(s string, n int) bool {
	for _, q := range quotedKeys {
		if strings.Count(s, q) != n {
			return false
		}
		folded := 0
		for i := strings.IndexByte(s, '"'); i >= 0 && i+len(q) <= len(s); {
			if strings.EqualFold(s[i:i+len(q)], q) {
				folded++
			}
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		if folded != n {
			return false
		}
	}
	return true
}

// named reports whether every call has an id and a name: a strict
// decoding gives a JSON null element, or an object without "id", as a
// call with none, which message_calls does not index.
func named(calls []ToolCall) bool {
	for _, c := range calls {
		if c.ID == "" || c.Name == "" {
			return false
		}
	}
	return true
}

// looseCall reads one element of a stored tool_calls array as
// message_calls' triggers do: a call when it is an object whose "id" is a
// string (its "name" when a string, its "arguments" as stored).
func looseCall(el json.RawMessage) (ToolCall, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(el, &obj) != nil || obj == nil {
		return ToolCall{}, false
	}
	var c ToolCall
	if json.Unmarshal(obj["id"], &c.ID) != nil || len(obj["id"]) == 0 || obj["id"][0] != '"' {
		return ToolCall{}, false
	}
	if n, ok := obj["name"]; ok && len(n) > 0 && n[0] == '"' {
		_ = json.Unmarshal(n, &c.Name)
	}
	c.Arguments = obj["arguments"]
	return c, true
}
