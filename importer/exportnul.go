package importer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Builds before walk53 stored NUL (U+0000) in tool-call arguments (the
// JSON escape \u0000 in a string or key) and in working-memory states,
// and a SQLite file may hold it in any text (a message's content, name,
// metadata). No store accepts it now: Import
// refuses the line (engine.Append and working memory refuse NUL), and
// Postgres text cannot hold it, so a move of such a directory to Postgres
// (export, then ingest) would leave the value behind. Export writes each
// NUL as U+FFFD, the replacement character, which both stores accept and
// a reader sees, and names every value it changed (ExportOptions.OnNUL,
// ExportReport.NULReplaced): the rest of the text moves as stored, and
// nothing is dropped unsaid.

// nulReplacement is what Export writes for each NUL character: U+FFFD.
const nulReplacement = "\uFFFD"

// NULReplaced names one stored value that Export wrote with its NUL
// characters (U+0000) as U+FFFD.
type NULReplaced struct {
	// Resource is the resource of the message or of the working-memory
	// state.
	Resource string `json:"resource"`
	// Thread is the message's thread, or the thread of a thread's
	// working-memory state; "" for a resource's state.
	Thread string `json:"thread,omitempty"`
	// Seq is the message's seq in its thread as stored (1-based); 0 for a
	// working-memory state.
	Seq int64 `json:"seq,omitempty"`
	// MessageID is the message's id; "" for a working-memory state.
	MessageID string `json:"messageId,omitempty"`
	// Field names the value: "content", "name", "title", "tool_call_id",
	// "metadata", "tool_calls[i].id", "tool_calls[i].name",
	// "tool_calls[i].arguments" (i from 0), or "working_memory".
	Field string `json:"field"`
	// Count is how many NUL characters were replaced (at least 1).
	Count int `json:"count"`
}

// String is where r's value is and what it held, for a person: "thread
// t1 seq 3 (message m3): content held 2 NUL characters (U+0000)".
func (r NULReplaced) String() string {
	where := fmt.Sprintf("thread %s seq %d (message %s): %s", r.Thread, r.Seq, r.MessageID, r.Field)
	switch {
	case r.MessageID == "" && r.Thread != "":
		where = "the working-memory state of thread " + r.Thread
	case r.MessageID == "":
		where = "the working-memory state of resource " + r.Resource
	}
	chars := "1 NUL character"
	if r.Count != 1 {
		chars = fmt.Sprintf("%d NUL characters", r.Count)
	}
	return fmt.Sprintf("%s held %s (U+0000)", where, chars)
}

// replaceNUL returns s with each NUL as U+FFFD, and how many there were.
func replaceNUL(s string) (string, int) {
	n := strings.Count(s, "\x00")
	if n == 0 {
		return s, 0
	}
	return strings.ReplaceAll(s, "\x00", nulReplacement), n
}

// replaceNULJSON returns the JSON text a with each \u0000 escape (in a
// string or key) and each NUL byte as U+FFFD, and how many there were. A
// backslash only begins an escape inside a string, so an escaped
// backslash before "u0000" (\\u0000: a backslash, then the text u0000)
// is skipped as the escape it is and kept.
func replaceNULJSON(a json.RawMessage) (json.RawMessage, int) {
	if !strings.Contains(string(a), `\u0000`) && !strings.Contains(string(a), "\x00") {
		return a, 0
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(a); i++ {
		switch {
		case a[i] == 0:
			b.WriteString(nulReplacement)
			n++
		case a[i] == '\\' && i+5 < len(a) && string(a[i+1:i+6]) == "u0000":
			b.WriteString(nulReplacement)
			n++
			i += 5
		case a[i] == '\\' && i+1 < len(a):
			b.Write(a[i : i+2])
			i++
		default:
			b.WriteByte(a[i])
		}
	}
	return json.RawMessage(b.String()), n
}

// replaceNULValue returns the decoded JSON value v (metadata) with each
// NUL in its strings and keys as U+FFFD, and how many there were. v is
// rebuilt only where it changes.
func replaceNULValue(v any) (any, int) {
	switch t := v.(type) {
	case string:
		return replaceNUL(t)
	case []any:
		total := 0
		for i, x := range t {
			y, n := replaceNULValue(x)
			if n > 0 {
				t[i] = y
				total += n
			}
		}
		return t, total
	case map[string]any:
		total := 0
		for k, x := range t {
			y, n := replaceNULValue(x)
			k2, nk := replaceNUL(k)
			if n+nk == 0 {
				continue
			}
			if nk > 0 {
				delete(t, k)
			}
			t[k2] = y
			total += n + nk
		}
		return t, total
	}
	return v, 0
}

// scrubNUL replaces the NUL characters of rec, the line of the message
// at seq, and reports each value it changed to report.
func scrubNUL(rec *exportRecord, seq int64, report func(NULReplaced)) {
	at := func(field string, n int) {
		if n > 0 {
			report(NULReplaced{Resource: rec.Resource, Thread: rec.Thread, Seq: seq, MessageID: rec.ID, Field: field, Count: n})
		}
	}
	var n int
	for _, f := range []struct {
		name string
		s    *string
	}{{"content", &rec.Content}, {"name", &rec.Name}, {"title", &rec.Title}, {"tool_call_id", &rec.ToolCallID}} {
		*f.s, n = replaceNUL(*f.s)
		at(f.name, n)
	}
	for i := range rec.ToolCalls {
		c := &rec.ToolCalls[i]
		c.ID, n = replaceNUL(c.ID)
		at(fmt.Sprintf("tool_calls[%d].id", i), n)
		c.Name, n = replaceNUL(c.Name)
		at(fmt.Sprintf("tool_calls[%d].name", i), n)
		c.Arguments, n = replaceNULJSON(c.Arguments)
		at(fmt.Sprintf("tool_calls[%d].arguments", i), n)
	}
	if rec.Metadata != nil {
		var v any
		v, n = replaceNULValue(rec.Metadata)
		rec.Metadata = v.(map[string]any)
		at("metadata", n)
	}
}
