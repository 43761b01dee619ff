package importer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// MaxLineBytes bounds one JSONL line (a message with its metadata).
const MaxLineBytes = 16 << 20

// jsonlRecord is one line of mnemo's JSONL format.
type jsonlRecord struct {
	Thread     string          `json:"thread"`
	Resource   string          `json:"resource"`
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    *string         `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Metadata   map[string]any  `json:"metadata"`
	CreatedAt  json.RawMessage `json:"created_at"`
}

// jsonl reads one message per line:
//
//	{"thread", "resource", "id"?, "role", "content", "name"?, "tool_calls"?,
//	 "tool_call_id"?, "metadata"?, "created_at"?}
//
// tool_calls is a list in OpenAI's shape ({"id", "type": "function",
// "function": {"name", "arguments": "<JSON text>"}}) or mnemo's ({"id",
// "name", "arguments": <JSON>}); created_at is RFC 3339 or Unix milliseconds
// (from 1e11, 1973-03-03: a smaller number is refused as Unix seconds).
// Consecutive lines of one thread are appended as one batch.
func (w *writer) jsonl(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var batch engine.AppendRequest
	var wheres []string
	flush := func() error {
		err := w.appendBatch(batch, wheres)
		batch, wheres = engine.AppendRequest{}, nil
		return err
	}
	// bad reports a malformed line after storing the batch before it, so
	// problems come in file order and strict stops at the first bad record
	// (perhaps one of the batch, which the engine refused) with nothing
	// after it reported.
	bad := func(where string, perr error) error {
		if err := flush(); err != nil {
			return err
		}
		return w.problem(where, perr)
	}
	ordinal := map[string]int{} // thread -> lines seen, for ids of lines without one
	for line := 1; ; line++ {
		b, tooLong, err := readLine(br, MaxLineBytes)
		if err == io.EOF && len(b) == 0 && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("importer: %s: line %d: %w", w.rep.File, line, err)
		}
		where := fmt.Sprintf("line %d", line)
		n := len(b)
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff")) // a UTF-8 byte-order mark
		}
		b = bytes.TrimLeftFunc(b, unicode.IsSpace)
		lead := n - len(b) // bytes before the record, for columns
		b = bytes.TrimRightFunc(b, unicode.IsSpace)
		if tooLong {
			if perr := bad(where, fmt.Errorf("longer than %d bytes", MaxLineBytes)); perr != nil {
				return perr
			}
		} else if len(b) > 0 {
			thread, resource, m, perr := parseJSONL(b, lead)
			if errors.Is(perr, errIncomplete) && err == io.EOF {
				perr = fmt.Errorf("%w; it is the file's last line and has no newline: the file may have been cut short", perr)
			}
			if perr == nil && m.ID == "" {
				m.ID = lineID(thread, ordinal[thread], b)
			}
			ordinal[thread]++
			switch {
			case perr != nil:
				if perr := bad(where, perr); perr != nil {
					return perr // under strict, the records before the bad one are stored
				}
			default:
				if batch.ThreadID != thread || batch.ResourceID != resource || len(batch.Messages) >= 500 {
					if err := flush(); err != nil {
						return err
					}
					batch.ThreadID, batch.ResourceID = thread, resource
				}
				batch.Messages = append(batch.Messages, m)
				wheres = append(wheres, where)
			}
		}
		if err == io.EOF {
			break
		}
	}
	return flush()
}

// readLine reads one line without its newline. A line longer than limit is
// consumed to its end and reported as tooLong, with no bytes.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, tooLong, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
	}
}

// lineID is the id of a JSONL line that has none: derived from its thread,
// its position among the thread's lines and its bytes, so importing the same
// file again stores nothing twice, while two equal lines stay two messages.
func lineID(thread string, ordinal int, line []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", thread, ordinal)
	h.Write(line)
	return "jsonl-" + hex.EncodeToString(h.Sum(nil))[:32]
}

// errIncomplete is a JSONL line that ends inside its JSON value (an
// unterminated string or object): json says "unexpected EOF".
var errIncomplete = errors.New("incomplete record: the line ends before its JSON value does (a JSONL record is one whole line)")

// parseJSONL decodes one JSONL record, lead bytes into its line (the
// column of a syntax error counts them). The engine validates the message
// itself; this checks the record's shape.
func parseJSONL(b []byte, lead int) (thread, resource string, m engine.Message, err error) {
	if err := checkLineText(b, lead); err != nil {
		return "", "", m, err
	}
	if path, _, ok := jsonkey.Repeated(b); ok {
		// encoding/json would keep the last silently, as a request body
		// to the HTTP API is refused for it.
		return "", "", m, fmt.Errorf("%q is given twice in one object; give each member once", path)
	}
	var rec jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		name, unknown := strings.CutPrefix(err.Error(), "json: unknown field ")
		switch {
		case unknown:
			return "", "", m, unknownMember(name)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return "", "", m, errIncomplete
		case errors.As(err, &se):
			return "", "", m, syntaxReason(b, lead, se)
		case errors.As(err, &te) && typeReason(te) != "":
			return "", "", m, errors.New(typeReason(te))
		case errors.As(err, &te):
			return "", "", m, fmt.Errorf("a record must be a JSON object, got %s", jsonValue(te.Value))
		}
		return "", "", m, fmt.Errorf("invalid record: %w", err)
	}
	if dec.More() {
		return "", "", m, errors.New("more than one JSON value on the line")
	}
	if rec.Thread == "" {
		return "", "", m, errors.New(`"thread" is required`)
	}
	if rec.Role == "" {
		return "", "", m, errors.New(`"role" is required`)
	}
	if rec.Content == nil && len(rec.ToolCalls) == 0 {
		return "", "", m, errors.New(`"content" is required`)
	}
	m = engine.Message{ID: rec.ID, Role: rec.Role, Name: rec.Name, ToolCallID: rec.ToolCallID, Metadata: rec.Metadata}
	if rec.Content != nil {
		m.Content = *rec.Content
	}
	if len(rec.ToolCalls) > 0 && string(rec.ToolCalls) != "null" {
		if m.ToolCalls, err = parseToolCalls(rec.ToolCalls); err != nil {
			return "", "", m, fmt.Errorf("tool_calls: %w", err)
		}
		if err := unknownToolCallMember(rec.ToolCalls); err != nil {
			return "", "", m, fmt.Errorf("tool_calls%w", err)
		}
	}
	if len(rec.CreatedAt) > 0 && string(rec.CreatedAt) != "null" {
		if m.CreatedAt, err = parseCreatedAt(rec.CreatedAt); err != nil {
			return "", "", m, fmt.Errorf("created_at: %w", err)
		}
	}
	return rec.Thread, rec.Resource, m, nil
}

// jsonlMembers are the members of a JSONL record, as the format lists them.
var jsonlMembers = []string{"thread", "resource", "id", "role", "content", "name", "tool_calls", "tool_call_id", "metadata", "created_at"}

// unknownMember is the reason a record naming a member the format does not
// have is malformed: `unknown field "contnet" (did you mean "content"?)`,
// or with the members listed when none is close. quoted is the member as
// encoding/json quotes it. Before, such a member was ignored: a misspelt
// "content" read as `"content" is required`, a misspelt "created_at"
// stored the time of the import.
// (encoding/json matches a member case-insensitively, so "Content" fills
// content, as it did before.)
func unknownMember(quoted string) error {
	name, err := strconv.Unquote(quoted)
	if err != nil {
		name = quoted
	}
	if near := jsonkey.Closest(name, jsonlMembers); near != "" {
		return fmt.Errorf("unknown field %q (did you mean %q?)", name, near)
	}
	return fmt.Errorf("unknown field %q (a record has %s)", name, andList(jsonlMembers))
}

// andList joins names as a sentence lists them: "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// parseToolCalls accepts OpenAI's and mnemo's tool-call shapes.
func parseToolCalls(raw json.RawMessage) ([]engine.ToolCall, error) {
	var items []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Function  *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(err, &te):
			return nil, fmt.Errorf("must be a list of tool calls: %w", err)
		case typeReason(te) != "":
			return nil, errors.New(typeReason(te))
		case te.Type.Kind() == reflect.Slice:
			return nil, fmt.Errorf("must be a list of tool calls, got %s", jsonValue(te.Value))
		}
		return nil, fmt.Errorf("each tool call must be an object, got %s", jsonValue(te.Value))
	}
	out := make([]engine.ToolCall, len(items))
	for i, it := range items {
		tc := engine.ToolCall{ID: it.ID, Name: it.Name, Arguments: it.Arguments}
		if it.Function != nil {
			tc.Name, tc.Arguments = it.Function.Name, json.RawMessage(it.Function.Arguments)
		} else if len(it.Arguments) > 0 && it.Arguments[0] == '"' {
			// Arguments given as JSON text inside a string, as OpenAI sends them.
			var s string
			if err := json.Unmarshal(it.Arguments, &s); err == nil {
				tc.Arguments = json.RawMessage(s)
			}
		}
		if len(tc.Arguments) == 0 {
			tc.Arguments = json.RawMessage("{}")
		}
		out[i] = tc
	}
	return out, nil
}

// toolCallMembers are the members of a tool call in OpenAI's shape and
// mnemo's together; functionMembers those of OpenAI's "function" object.
var (
	toolCallMembers = []string{"id", "type", "function", "name", "arguments"}
	functionMembers = []string{"name", "arguments"}
)

// unknownToolCallMember is the reason a list of tool calls that
// parseToolCalls accepted is malformed: a tool call (or its "function")
// naming a member neither shape has, `[1]: unknown field "argumets" (did
// you mean "arguments"?)`, which the caller prefixes with "tool_calls".
// Before, such a member was ignored: a misspelt "arguments" stored the
// call with {} silently.
func unknownToolCallMember(raw json.RawMessage) error {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil // null, or a shape parseToolCalls has already accepted
	}
	for i, it := range items {
		if err := unknownKey(it, "a tool call", toolCallMembers); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		var fn map[string]json.RawMessage
		if json.Unmarshal(it["function"], &fn) == nil {
			if err := unknownKey(fn, "a function", functionMembers); err != nil {
				return fmt.Errorf("[%d].function: %w", i, err)
			}
		}
	}
	return nil
}

// unknownKey is an error naming the first key of obj, in sorted order, that
// is not one of known (nor one of them in another case, which encoding/json
// matches), with the member it most likely meant, or known listed as what
// what (a noun: "a tool call") has; nil when there is none.
func unknownKey(obj map[string]json.RawMessage, what string, known []string) error {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.ContainsFunc(known, func(n string) bool { return strings.EqualFold(n, k) }) {
			if near := jsonkey.Closest(k, known); near != "" {
				return fmt.Errorf("unknown field %q (did you mean %q?)", k, near)
			}
			return fmt.Errorf("unknown field %q (%s has %s)", k, what, andList(known))
		}
	}
	return nil
}

// parseCreatedAt reads created_at: a string (RFC 3339 or Unix
// milliseconds) or a number of Unix milliseconds. The zero time
// (0001-01-01T00:00:00Z, an unset time written out) is an error: left out,
// created_at means the time of the import. Unix milliseconds must be at
// least minCreatedAtMillis (1973-03-03T09:46:40Z): a negative number (-1,
// a "no time" sentinel), 0 (an unset timestamp in most languages) and a
// smaller positive one (Unix seconds, 1700000000) are errors naming the
// value; times before it can be written in RFC 3339. A fraction or an
// exponent is not a whole number and is refused too.
func parseCreatedAt(raw json.RawMessage) (time.Time, error) {
	var ms int64
	if err := json.Unmarshal(raw, &ms); err == nil {
		return epochMillis(raw, ms)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, fmt.Errorf("%s is neither a string nor a whole number of Unix milliseconds", raw)
	}
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	switch {
	case err != nil:
		if _, err := fmt.Sscanf(s, "%d", &ms); err == nil && fmt.Sprint(ms) == s {
			return epochMillis(raw, ms)
		}
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor Unix milliseconds", s)
	case t.IsZero():
		return time.Time{}, fmt.Errorf("%s is the zero time (0001-01-01T00:00:00Z), which is no time anyone meant: leave created_at out for the time of the import", raw)
	}
	return t.UTC(), nil
}

// minCreatedAtMillis is the smallest number of Unix milliseconds a JSONL
// created_at may hold: 1e11, 1973-03-03T09:46:40Z. A smaller positive
// number is almost surely Unix seconds (1700000000, November 2023, would
// be stored as 1970-01-20 as milliseconds), and seconds reach 1e11 only in
// the year 5138; earlier times are written in RFC 3339.
const minCreatedAtMillis = 100_000_000_000

// epochMillis is the time of ms Unix milliseconds, raw as the record
// writes them; ms must be at least minCreatedAtMillis.
func epochMillis(raw json.RawMessage, ms int64) (time.Time, error) {
	switch {
	case ms < 0:
		return time.Time{}, fmt.Errorf("%s is before 1970-01-01T00:00:00Z (a negative number of Unix milliseconds): write an earlier time in RFC 3339, or leave created_at out for the time of the import", raw)
	case ms == 0:
		return time.Time{}, fmt.Errorf("%s is the Unix epoch, what an unset timestamp holds in most languages: write 1970-01-01T00:00:00Z if it is meant, or leave created_at out for the time of the import", raw)
	case ms < minCreatedAtMillis:
		return time.Time{}, fmt.Errorf("%s looks like Unix seconds (as milliseconds it is %s); give milliseconds (%d) or RFC 3339", raw,
			time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), ms*1000)
	}
	return time.UnixMilli(ms).UTC(), nil
}
