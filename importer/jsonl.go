package importer

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// MaxLineBytes bounds one JSONL line (a message with its metadata).
const MaxLineBytes = 16 << 20

// jsonlRecord is one line of mnemo's JSONL format.
type jsonlRecord struct {
	Thread   string `json:"thread"`
	Resource string `json:"resource"`
	// Title is the thread's title, stored when the line's batch creates
	// the thread (engine.AppendRequest.Title); ignored afterwards.
	Title string `json:"title"`
	// IdleTTL is the thread's own idle lifetime (parseIdleTTL), set once
	// the line's batch is appended (engine.SetIdleTTL).
	IdleTTL    json.RawMessage `json:"idle_ttl"`
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string or a list of parts: parseContent
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Metadata   map[string]any  `json:"metadata"`
	CreatedAt  json.RawMessage `json:"created_at"`
	// Refusal is OpenAI's refusal text and Audio its audio output, whose
	// transcript is the text said (both unstoredMembers): the first of
	// them given is the content when the content is empty or null.
	Refusal *string `json:"refusal"`
	// ToolName is Ollama's name of the tool a "tool" message answers
	// (api.Message.ToolName; docs/api.md, "Chat request (With history,
	// with tools)": {"role": "tool", "content": "11 degrees celsius",
	// "tool_name": "get_weather"}), stored as the message's name.
	ToolName string `json:"tool_name"`
	Audio    *struct {
		Transcript string `json:"transcript"`
	} `json:"audio"`
	// FunctionCall is OpenAI's deprecated function call, named in the
	// reason a line holding only one is skipped.
	FunctionCall json.RawMessage `json:"function_call"`
	// Type is the OpenAI Responses item type of a line that gives one,
	// Status the item's status (accepted, not stored); CallID, Arguments
	// and Output are a function_call's and a function_call_output's
	// (responses.go).
	Type      string          `json:"type"`
	Status    string          `json:"status"`
	CallID    string          `json:"call_id"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	// Mode is a "working_memory" line's (workingmemory.go).
	Mode string `json:"mode"`
	// Run, MessageID, State, ResultID, BegunAt and SettledAt are a
	// "dispatch" line's, with CallID and Name (dispatch.go).
	Run       string          `json:"run"`
	MessageID string          `json:"message_id"`
	State     string          `json:"state"`
	ResultID  string          `json:"result_id"`
	BegunAt   json.RawMessage `json:"begun_at"`
	SettledAt json.RawMessage `json:"settled_at"`
}

// jsonlLine is a JSONL line read: its message, the thread and resource
// it names, and the members of unstoredMembers it gave a value, which
// the message does not hold (Report.Unstored).
type jsonlLine struct {
	thread, resource string
	title            string           // the thread's title the line gives, or ""
	ttl              time.Duration    // the thread's idle lifetime the line gives (parseIdleTTL), or 0
	wm               *wmLine          // a "working_memory" line's state; nil for a message
	dispatch         *engine.Dispatch // a "dispatch" line's dispatch; nil for a message
	msg              engine.Message
	unstored         []string
	item             string // the Responses item type the line gives, or ""
}

// jsonl reads one message per line:
//
//	{"thread", "resource", "title"?, "idle_ttl"?, "id"?, "role", "content", "name"?,
//	 "tool_calls"?, "tool_call_id"?, "metadata"?, "created_at"?}
//
// title is the thread's, stored by the batch that creates the thread (the
// first title its lines give) and ignored for a stored thread, as
// engine.AppendRequest.Title is. idle_ttl is the thread's own idle
// lifetime ("never" or a Go duration, parseIdleTTL), set once the batch
// holding the line is appended (engine.SetIdleTTL), on a stored thread
// too.
// tool_calls is a list in OpenAI's shape ({"id", "type": "function",
// "function": {"name", "arguments": "<JSON text>"}}, Ollama's with the
// arguments as an object) or mnemo's ({"id", "name", "arguments":
// <JSON>}); content is a string or a list of parts (parseContent);
// created_at is RFC 3339 or Unix milliseconds (from 1e11,
// 1973-03-03: a smaller number is refused as Unix seconds). The members
// chat APIs add (unstoredMembers) are accepted and not stored. A line
// may be an OpenAI Responses item instead (responses.go): a
// function_call line joins the assistant message of the line before
// (responseItems). Consecutive lines of one thread are appended as one
// batch.
func (w *writer) jsonl(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	jb := &jsonlBatch{w: w, items: responseItems{open: -1}}
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
		b = bytes.TrimLeft(b, jsonSpace)
		lead := n - len(b) // bytes before the record, for columns
		b = bytes.TrimRight(b, jsonSpace)
		if tooLong {
			if perr := jb.bad(where, fmt.Errorf("longer than %d bytes", MaxLineBytes)); perr != nil {
				return perr
			}
		} else if len(b) > 0 {
			l, perr := parseJSONL(b, lead)
			if errors.Is(perr, errIncomplete) && err == io.EOF {
				perr = fmt.Errorf("%w; it is the file's last line and has no newline: the file may have been cut short", perr)
			}
			m := l.msg
			if perr == nil && m.ID == "" && l.wm == nil && l.dispatch == nil {
				m.ID = lineID(l.thread, ordinal[l.thread], b)
			}
			ordinal[l.thread]++
			switch {
			case perr != nil:
				if perr := jb.bad(where, perr); perr != nil {
					return perr // under strict, the records before the bad one are stored
				}
			case l.wm != nil:
				if err := jb.workingMemory(where, l.wm); err != nil {
					return err
				}
			case l.dispatch != nil:
				if err := jb.dispatch(where, l.dispatch); err != nil {
					return err
				}
			case jb.items.join(&jb.req, l, m, line, jb.wheres):
				// a call of the assistant message of the lines before
			default:
				if err := jb.add(l, m, line, where); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	return jb.flush()
}

// jsonlBatch is the batch a JSONL import gathers: consecutive lines of
// one thread (at most 500), appended as one engine.Append.
type jsonlBatch struct {
	w        *writer
	req      engine.AppendRequest
	wheres   []string   // per message of req: its record
	unstored [][]string // per message of req: its unstored members
	items    responseItems
	ttl      time.Duration // the idle lifetime a line of the batch gives its thread, or 0
	ttlWhere string        // that line
}

// flush appends the batch and starts a new one.
func (jb *jsonlBatch) flush() error {
	err := jb.w.appendBatch(jb.req, jb.wheres, jb.unstored)
	thread, resource, ttl, where := jb.req.ThreadID, jb.req.ResourceID, jb.ttl, jb.ttlWhere
	jb.req, jb.wheres, jb.unstored, jb.ttl = engine.AppendRequest{}, nil, nil, 0
	jb.items.open = -1
	if err == nil && ttl != 0 {
		err = jb.w.setIdleTTL(where, thread, resource, ttl)
	}
	return err
}

// bad reports a malformed line after storing the batch before it, so
// problems come in file order and strict stops at the first bad record
// (perhaps one of the batch, which the engine refused) with nothing
// after it reported.
func (jb *jsonlBatch) bad(where string, perr error) error {
	if err := jb.flush(); err != nil {
		return err
	}
	return jb.w.problem(where, perr)
}

// add adds message m of line (l, at where) to the batch, appending the
// batch first when m is of another thread or resource, or it is full.
func (jb *jsonlBatch) add(l jsonlLine, m engine.Message, line int, where string) error {
	if jb.req.ThreadID != l.thread || jb.req.ResourceID != l.resource || len(jb.req.Messages) >= 500 {
		if err := jb.flush(); err != nil {
			return err
		}
		jb.req.ThreadID, jb.req.ResourceID = l.thread, l.resource
	}
	jb.req.Title = cmp.Or(jb.req.Title, l.title) // the first the batch's lines give
	if jb.ttl == 0 && l.ttl != 0 {
		jb.ttl, jb.ttlWhere = l.ttl, where
	}
	jb.items.note(&m, l, len(jb.req.Messages), line)
	jb.req.Messages = append(jb.req.Messages, m)
	jb.wheres = append(jb.wheres, where)
	jb.unstored = append(jb.unstored, l.unstored)
	return nil
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
// itself; this checks the record's shape: its members (checkMembers: each
// one of jsonlMembers or unstoredMembers, spelt as listed, or of its
// Responses item type's: lineMembers) and their types.
func parseJSONL(b []byte, lead int) (l jsonlLine, err error) {
	if err := checkLineText(b, lead); err != nil {
		return l, err
	}
	if path, _, ok := jsonkey.Repeated(b); ok {
		// encoding/json would keep the last silently, as a request body
		// to the HTTP API is refused for it.
		return l, fmt.Errorf("%q is given twice in one object; give each member once", path)
	}
	var unstored []string
	if json.Valid(b) { // else decodeRecord words the fault
		item, known, unused, err := lineMembers(b)
		if err != nil {
			return l, err
		}
		what := "a record"
		if item != "" {
			what = fmt.Sprintf("a %q item", item)
		}
		if unstored, err = recordMembers(b, what, known, unused); err != nil {
			return l, err
		}
	}
	rec, err := decodeRecord(b, lead)
	if err != nil {
		return l, err
	}
	var m engine.Message
	switch rec.Type {
	case itemWorkingMemory:
		wm, err := rec.workingMemory()
		return jsonlLine{thread: rec.Thread, resource: rec.Resource, wm: wm}, err
	case itemDispatch:
		d, err := rec.dispatch()
		return jsonlLine{thread: rec.Thread, resource: rec.Resource, dispatch: d}, err
	case "", itemMessage:
		m, unstored, err = rec.message(unstored)
	case itemFunctionCall, itemFunctionCallOutput:
		if rec.Thread == "" {
			return l, errors.New(`"thread" is required`)
		}
		if rec.Type == itemFunctionCall {
			m, err = rec.functionCall()
		} else {
			var u []string
			m, u, err = rec.functionCallOutput()
			unstored = append(unstored, u...)
		}
	default: // unreachable: lineMembers refused it
		err = unknownItemType(rec.Type)
	}
	if err != nil {
		return l, err
	}
	if len(rec.CreatedAt) > 0 && string(rec.CreatedAt) != "null" {
		if m.CreatedAt, err = parseCreatedAt(rec.CreatedAt); err != nil {
			return l, fmt.Errorf("created_at: %w", err)
		}
	}
	l = jsonlLine{thread: rec.Thread, resource: rec.Resource, msg: m, unstored: unstored, item: rec.Type}
	if rec.Type != itemFunctionCall && rec.Type != itemFunctionCallOutput {
		l.title = rec.Title // lineMembers refused it on the other items
	}
	if l.ttl, err = parseIdleTTL(rec.IdleTTL); err != nil {
		return l, err
	}
	return l, nil
}

// message is the message of a line in mnemo's shape (or a Responses
// "message" item), with unstored, the record's members of unstoredMembers
// that gave a value (recordMembers), and its content's: the members it
// gave that mnemo does not store.
func (rec *jsonlRecord) message(unstored []string) (m engine.Message, _ []string, err error) {
	content, err := parseContent(rec.Content, rec.Role) // a fault of its type first, as decodeRecord's
	if err != nil {
		return m, nil, err
	}
	if rec.Thread == "" {
		return m, nil, errors.New(`"thread" is required`)
	}
	if rec.Role == "" {
		return m, nil, errors.New(`"role" is required`)
	}
	kept := rec.keepAnswer(&content)
	functionCall := len(rec.FunctionCall) > 0 && string(rec.FunctionCall) != "null"
	if !content.given && len(rec.ToolCalls) == 0 {
		if functionCall {
			return m, nil, errors.New(`"content" is required: ` + onlyFunctionCall)
		}
		return m, nil, errors.New(`"content" is required`)
	}
	m = engine.Message{ID: rec.ID, Role: rec.Role, Name: rec.Name, ToolCallID: rec.ToolCallID, Metadata: rec.Metadata, Content: content.text}
	if len(rec.ToolCalls) > 0 && string(rec.ToolCalls) != "null" {
		if err := unknownToolCallMember(rec.ToolCalls); err != nil {
			return m, nil, fmt.Errorf("tool_calls%w", err)
		}
		if m.ToolCalls, err = parseToolCalls(rec.ToolCalls); err != nil {
			return m, nil, err
		}
	}
	if m.Content == "" && len(m.ToolCalls) == 0 && functionCall {
		// "content": "" or [] beside it: the engine's refusal of an empty
		// message, or noText, would not say where the call went.
		return m, nil, errors.New(`"content" is empty: ` + onlyFunctionCall)
	}
	if content.parts && m.Content == "" && len(m.ToolCalls) == 0 {
		return m, nil, content.noText()
	}
	if m.Name, err = rec.toolName(); err != nil {
		return m, nil, err
	}
	unstored = append(unstored, content.unstored...)
	if kept == "refusal" { // stored: it is the content
		unstored = slices.DeleteFunc(unstored, func(k string) bool { return k == kept })
	}
	if m.Role == engine.RoleTool { // stored: it is the name
		unstored = slices.DeleteFunc(unstored, func(k string) bool { return k == "tool_name" })
	}
	return m, unstored, nil
}

// toolName is the name of the record's message: its "name", or for a
// "tool" message without one Ollama's "tool_name". A tool message giving
// both, different, is an error naming them. Another role's tool_name is
// not stored (Ollama writes it on tool messages only).
func (rec *jsonlRecord) toolName() (string, error) {
	switch {
	case rec.Role != engine.RoleTool || rec.ToolName == "" || rec.Name == rec.ToolName:
		return rec.Name, nil
	case rec.Name == "":
		return rec.ToolName, nil
	}
	return "", fmt.Errorf(`"name" %q and "tool_name" %q name different tools: give the tool's name once`, rec.Name, rec.ToolName)
}

// onlyFunctionCall ends the reason a line is skipped whose message is a
// "function_call" alone.
const onlyFunctionCall = `the line has only a "function_call" (OpenAI's deprecated function calling), which mnemo does not store; give the call as "tool_calls"`

// keepAnswer makes an OpenAI answer's refusal, or else its audio's
// transcript, the record's content c when c's text is empty or null (a
// refusal comes with "content": null, as audio output does), and returns
// the member kept ("refusal", "audio"), "" when none.
func (rec *jsonlRecord) keepAnswer(c *recordContent) string {
	if c.text != "" {
		return ""
	}
	switch {
	case rec.Refusal != nil && *rec.Refusal != "":
		c.text, c.given = *rec.Refusal, true
		return "refusal"
	case rec.Audio != nil && rec.Audio.Transcript != "":
		c.text, c.given = rec.Audio.Transcript, true
		return "audio"
	}
	return ""
}

// decodeRecord decodes the JSONL line b (lead bytes into its line) as a
// record, with the reason in the file's words when it is not one: an
// incomplete or malformed line, a member of the wrong type, not an object,
// more than one value. Members the record has no field for are left to
// checkMembers.
func decodeRecord(b []byte, lead int) (*jsonlRecord, error) {
	var rec jsonlRecord
	if string(bytes.TrimRight(b, jsonSpace)) == "null" {
		// Decoded into rec as nothing at all: it read `"thread" is required`.
		return nil, errors.New("a record must be a JSON object, got null")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // metadata numbers as written, not rounded to float64
	if err := dec.Decode(&rec); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errIncomplete
		case errors.As(err, &se) && startsText(b):
			return nil, notJSON(b)
		case errors.As(err, &se):
			return nil, syntaxReason(b, lead, se)
		case errors.As(err, &te) && typeReason(te) != "":
			return nil, errors.New(typeReason(te))
		case errors.As(err, &te):
			return nil, fmt.Errorf("a record must be a JSON object, got %s", jsonValue(te.Value))
		}
		return nil, fmt.Errorf("invalid record: %w", err)
	}
	if n := hugeNumber(rec.Metadata); n != "" {
		return nil, fmt.Errorf("%q holds the number %s, out of the range of a 64-bit float", "metadata", n)
	}
	// dec.More is false before a "}" or "]", which would pass: the record
	// read, with its members unchecked (json.Valid(b) is false).
	rest := bytes.TrimLeft(b[dec.InputOffset():], jsonSpace)
	if len(rest) == 0 {
		return &rec, nil
	}
	if startsValue(rest) {
		return nil, errors.New("more than one JSON value on the line")
	}
	r, _ := utf8.DecodeRune(rest)
	hint := ""
	switch r {
	case '}', ']':
		hint = " (a closing bracket too many?)"
	case ',':
		hint = " (a trailing comma? a JSONL line holds one record and nothing after it)"
	default:
		if unicode.IsSpace(r) { // not JSON's, which are trimmed
			hint = " (only spaces, tabs and line ends may follow a record)"
		}
	}
	return nil, fmt.Errorf("invalid record at column %d: %q after the record's end%s", lead+len(b)-len(rest)+1, r, hint)
}

// startsText reports whether b starts with a printable character that
// begins no JSON value: text, not JSON ("the user said hi"). A space of
// another kind (U+00A0, a form feed) or a byte-order mark keeps its
// syntax error, which names it.
func startsText(b []byte) bool {
	r, _ := utf8.DecodeRune(b)
	return len(b) > 0 && !startsValue(b) && unicode.IsPrint(r) && r != ' '
}

// notJSON is the reason of a line b that starts with no JSON value
// (plain text, a log line): said as what a record must be, where
// encoding/json's text read "invalid character 'h' in literal true
// (expecting 'r')" for "the user said hi".
func notJSON(b []byte) error {
	r, _ := utf8.DecodeRune(b)
	return fmt.Errorf(`a record must be a JSON object, got text that is not JSON (the line starts with %q; each line of a JSONL file is one JSON object, {"thread": …, "role": …, "content": …})`, r)
}

// jsonSpace is JSON's whitespace (RFC 8259: space, tab, line feed,
// carriage return), the only bytes that may surround a JSONL record: a
// vertical tab, U+0085 or U+00A0 there (unicode.IsSpace) is malformed, as
// encoding/json refuses it around a value.
const jsonSpace = " \t\n\r"

// startsValue reports whether b begins with a JSON value's first byte
// (an object, a list, a string, a number) or a literal (true, false,
// null): what follows a record on its line is then a second value, and
// else a character no JSON value begins with, such as a trailing comma.
func startsValue(b []byte) bool {
	if bytes.HasPrefix(b, []byte("true")) || bytes.HasPrefix(b, []byte("false")) || bytes.HasPrefix(b, []byte("null")) {
		return true
	}
	return strings.IndexByte(`{["-0123456789`, b[0]) >= 0
}

// parseToolCalls accepts OpenAI's, Ollama's and mnemo's tool-call shapes:
// a "function" object whose arguments are JSON text in a string (OpenAI)
// or a JSON object (Ollama's /api/chat), or the name and arguments on the
// call (mnemo), each read by the rule of mnemo serve and engine.Append
// (callArguments).
func parseToolCalls(raw json.RawMessage) ([]engine.ToolCall, error) {
	calls, err := toolCalls(raw)
	var ce *callError
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve): // names the call's arguments (callArguments)
		return nil, err
	case errors.As(err, &ce):
		return nil, fmt.Errorf("tool_calls[%d]%w", ce.index, ce.err)
	case err != nil:
		return nil, fmt.Errorf("tool_calls: %w", err)
	}
	return calls, nil
}

// toolCalls is parseToolCalls without the "tool_calls: " its errors
// begin with; the fault of one call's type (typeFault) is a *callError,
// of its arguments a *engine.ValidationError naming them (callArguments).
func toolCalls(raw json.RawMessage) ([]engine.ToolCall, error) {
	var items []struct {
		ID        string          `json:"id"`
		Type      json.RawMessage `json:"type"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Function  *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
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
		if err := typeFault(it.Type); err != nil {
			return nil, &callError{i, err}
		}
		tc := engine.ToolCall{ID: it.ID, Name: it.Name}
		args, field := it.Arguments, fmt.Sprintf("tool_calls[%d].arguments", i)
		if fn := it.Function; fn != nil {
			tc.Name, args, field = fn.Name, fn.Arguments, fmt.Sprintf("tool_calls[%d].function.arguments", i)
		}
		a, err := callArguments(field, args)
		if err != nil {
			return nil, err
		}
		tc.Arguments = a
		out[i] = tc
	}
	return out, nil
}

// jsonKind names the kind of the JSON value v: "a list", "a number",
// "true or false".
func jsonKind(v []byte) string {
	switch v[0] {
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	}
	return "a number"
}

// unknownToolCallMember is the reason a list of tool calls is malformed
// for a member's name: a tool call (or its "function") naming a member
// neither shape has nor chat APIs add (toolCallUnused, functionUnused), or
// one of them in another case, `[1]: unknown field "argumets" (did you
// mean "arguments"?)`, which the caller prefixes with "tool_calls".
// Before, such a member was ignored: a misspelt "arguments" stored the
// call with {} silently.
func unknownToolCallMember(raw json.RawMessage) error {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil // null, or not a list: parseToolCalls says so
	}
	for i, it := range items {
		if err := checkMembers(it, "a tool call", toolCallMembers, toolCallUnused); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		for k, fn := range jsonkey.Members(it) {
			if k != "function" {
				continue
			}
			if err := checkMembers(fn, "a function", functionMembers, functionUnused); err != nil {
				return fmt.Errorf("[%d].function: %w", i, err)
			}
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
