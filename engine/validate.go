package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/internal/render"
)

// IDRule is the rule of an id that names something stored (ValidID), in
// a read's, an erasure's or a lookup's refusal: the one text of it, which
// the server's and the CLI's refusals say too, `FIELD RULE; got …`
// (IDFault).
const IDRule = "must be 1-128 characters of [A-Za-z0-9_.:@-]"

// NewIDRule is the rule of an id that names something new (ValidNewID),
// in the refusal of an append, a run id or a dispatch: IDRule, the dot
// segments and the tombstone prefix.
const NewIDRule = IDRule + `, and not "." or ".." (which URLs read as dot segments), and not beginning with "` + TombstonePrefix + `" (reserved for erased owners)`

// idByte marks the bytes of IDRule.
var idByte = func() (ok [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@-" {
		ok[c] = true
	}
	return ok
}()

// ValidID reports whether s may be the id of a stored thread, resource,
// run, message or tool call: 1 to 128 bytes of ASCII letters, digits and
// _ . : @ - (no spaces, no other characters, so no two ids differ only by
// Unicode normalisation). Reads, erasures and other lookups take such an
// id; an invalid one is a *ValidationError naming its field. It accepts
// "." and "..", which ValidNewID refuses: a store written before that rule
// may hold them, and they stay readable and erasable.
// (A loop over the bytes instead of a regexp: ten ids and more are
// checked an append, ~1 % of an import's CPU.)
func ValidID(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte[s[i]] {
			return false
		}
	}
	return true
}

// ValidNewID reports whether s may name something new: a thread,
// resource, message or tool call an Append stores, a run id LoadContext,
// HandleToolCall or BeginDispatch records. It is ValidID but for "." and
// "..": no WHATWG URL client (a browser, fetch, the MCP SDKs) can put them
// in a path, where "..", ".%2e" and "%2E%2E" are all a dot segment, so
// /v1/threads/../messages is another route's path; and but for ids
// beginning with TombstonePrefix (case-sensitive), which erasure puts in
// place of an erased thread's or resource's id (and of its turns' message
// ids in other records): a thread "erased-x" would be taken for a
// tombstone by the paths that skip them (a DeleteThread of its runs alone
// answered ErrThreadNotFound) and could be read as one in the records. The
// rule is the same for every kind of new id, so one rule text says it. A
// refused id is a *ValidationError naming its field, whose rule says so.
func ValidNewID(s string) bool {
	return s != "." && s != ".." && !strings.HasPrefix(s, TombstonePrefix) && ValidID(s)
}

// newID reports whether s may name something new in e: ValidNewID, or
// ValidID after legacyid.Allow (tests of stores written before ValidNewID).
func (e *Engine) newID(s string) bool {
	return ValidNewID(s) || (e.legacyIDs.Load() && ValidID(s))
}

func init() {
	legacyid.Allow = func(e any) { e.(*Engine).legacyIDs.Store(true) }
}

// validateRequest checks an AppendRequest before anything is stored.
// stored says the request's thread and resource are stored ones (a
// settlement's: appendHooks.stored), whose ids are held to ValidID.
func (e *Engine) validateRequest(req *AppendRequest, stored bool) error {
	valid := e.newID
	if stored {
		valid = ValidID
	}
	if !valid(req.ThreadID) {
		return badID(-1, "threadId", req.ThreadID, !stored)
	}
	if req.ResourceID != "" && !valid(req.ResourceID) {
		return badID(-1, "resourceId", req.ResourceID, !stored)
	}
	if err := checkText(-1, "title", req.Title); err != nil {
		return err
	}
	if len(req.Messages) == 0 {
		return invalid(-1, "messages", "must hold at least one message")
	}
	if err := e.limits.TooManyMessages(len(req.Messages)); err != nil {
		return err
	}
	for i := range req.Messages {
		if err := e.validateMessage(i, &req.Messages[i]); err != nil {
			return err
		}
	}
	return nil
}

// validateMessage checks message i of an append, in order: its id, role,
// text fields, role-specific fields, tool calls and metadata; the first
// failing check is the error.
func (e *Engine) validateMessage(i int, m *Message) error {
	if m.ID != "" && !e.newID(m.ID) {
		return badID(i, "id", m.ID, true)
	}
	for _, check := range []func(int, *Message) error{
		checkRole, checkCreatedAt, e.checkTextFields, checkRoleFields, e.checkToolCalls, e.checkMetadata,
	} {
		if err := check(i, m); err != nil {
			return err
		}
	}
	return nil
}

// checkRole accepts the stored roles: user, assistant and tool.
func checkRole(i int, m *Message) error {
	switch m.Role {
	case RoleUser, RoleAssistant, RoleTool:
		return nil
	case "system":
		return invalid(i, "role", `"system" is not stored: system prompts belong to the caller; use user, assistant or tool`)
	default:
		return invalid(i, "role", "must be user, assistant or tool, got %q", clip(m.Role, 32))
	}
}

// checkCreatedAt accepts a creation time that RFC 3339 can write (years
// 0000 to 9999; zero means now): a message of year 10000 (Unix
// milliseconds from an import) would be stored, and then every JSON
// listing of its thread would fail.
func checkCreatedAt(i int, m *Message) error {
	if y := m.CreatedAt.UTC().Year(); !m.CreatedAt.IsZero() && (y < 0 || y > 9999) {
		return invalid(i, "createdAt", "must lie within the years 0000 to 9999 (RFC 3339), got year %d", y)
	}
	return nil
}

// MaxCreatedAtAhead is how far past the engine's clock a message's
// createdAt may lie (clock skew between a client and the server). A later
// time is refused: ErrCreatedAtFuture, on the field "createdAt". Past times
// are all allowed (imported history keeps its own times).
const MaxCreatedAtAhead = 24 * time.Hour

// checkNotFuture refuses message i's createdAt when it lies more than
// MaxCreatedAtAhead past now: a thread's updated_at (its newest message's
// time) of year 9999 would sort it first forever, and date-bounded recall
// ("at", "since") would see it in every window.
func checkNotFuture(i int, m *Message, now time.Time) error {
	if limit := now.Add(MaxCreatedAtAhead); m.CreatedAt.After(limit) {
		return &ValidationError{Index: i, Field: "createdAt", Err: ErrCreatedAtFuture,
			Rule: fmt.Sprintf("must not lie more than %s past the server's clock (%s), got %s",
				MaxCreatedAtAhead, now.UTC().Format(time.RFC3339), m.CreatedAt.UTC().Format(time.RFC3339))}
	}
	return nil
}

// checkTextFields checks content and name: valid text within their sizes
// (a tool result has its own, larger, content limit).
func (e *Engine) checkTextFields(i int, m *Message) error {
	if err := checkText(i, "content", m.Content); err != nil {
		return err
	}
	limit := e.limits.MaxContentBytes
	if m.Role == RoleTool {
		limit = e.limits.MaxToolResultBytes
	}
	if len(m.Content) > limit {
		return invalid(i, "content", "at most %d bytes for role %s, got %d", limit, m.Role, len(m.Content))
	}
	if err := checkText(i, "name", m.Name); err != nil {
		return err
	}
	if len(m.Name) > 256 {
		return invalid(i, "name", "at most 256 bytes")
	}
	return checkName(i, m.Name)
}

// checkName refuses a name holding a control character (C0, DEL, C1: a
// line break among them), a line or paragraph separator, or a
// bidirectional control (marks, embeddings, overrides, isolates), or
// another character the prompt escapes in stored text (render.Hidden: tag
// characters U+E0000–U+E007F, which spell invisible ASCII, and interlinear
// annotations U+FFF9–U+FFFB): a name reaches the model's prompt as the
// message's name, as stored, where such characters could start a line of
// instructions, reorder what a reader sees or carry text no reader sees.
func checkName(i int, name string) error {
	for _, r := range name {
		switch {
		case unicode.IsControl(r):
			return invalid(i, "name", "must not contain control characters, got %U", r)
		case r == '\u2028' || r == '\u2029':
			return invalid(i, "name", "must not contain line or paragraph separators, got %U", r)
		case unicode.Is(unicode.Bidi_Control, r):
			return invalid(i, "name", "must not contain bidirectional controls, got %U", r)
		case render.Hidden(r):
			return invalid(i, "name", "must not contain invisible tag or annotation characters, got %U", r)
		}
	}
	return nil
}

// checkRoleFields checks what each role must and must not carry: a tool
// message answers one call id and makes no calls; only assistant messages
// make calls; an assistant message has content or calls, a user message
// content.
func checkRoleFields(i int, m *Message) error {
	switch m.Role {
	case RoleTool:
		if m.ToolCallID == "" {
			return invalid(i, "toolCallId", "is required for a tool message")
		}
		// ValidID, not ValidNewID: it names a call already made, which
		// a store written before ValidNewID may hold as "." or "..".
		if !ValidID(m.ToolCallID) {
			return badID(i, "toolCallId", m.ToolCallID, false)
		}
		if len(m.ToolCalls) > 0 {
			return invalid(i, "toolCalls", "only assistant messages carry tool calls")
		}
	case RoleUser:
		if len(m.ToolCalls) > 0 {
			return invalid(i, "toolCalls", "only assistant messages carry tool calls")
		}
		fallthrough
	case RoleAssistant:
		if m.ToolCallID != "" {
			return invalid(i, "toolCallId", "only tool messages carry a toolCallId")
		}
	}
	if m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0 {
		return invalid(i, "content", "an assistant message needs content or tool calls")
	}
	if m.Role == RoleUser && strings.TrimSpace(m.Content) == "" {
		return invalid(i, "content", "a user message needs content")
	}
	return nil
}

// checkToolCalls checks the number of tool calls and each call in order.
func (e *Engine) checkToolCalls(i int, m *Message) error {
	if err := e.limits.TooManyToolCalls(i, len(m.ToolCalls)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for j, tc := range m.ToolCalls {
		if err := e.checkToolCall(i, j, tc, seen); err != nil {
			return err
		}
	}
	return nil
}

// checkToolCall checks call j of message i: a valid id not seen before in
// the message (seen records it), a tool name, and its arguments
// (checkArguments).
func (e *Engine) checkToolCall(i, j int, tc ToolCall, seen map[string]bool) error {
	f := func(s string) string { return "toolCalls[" + strconv.Itoa(j) + "]." + s }
	if !e.newID(tc.ID) {
		return badID(i, f("id"), tc.ID, true)
	}
	if seen[tc.ID] {
		return invalid(i, f("id"), "duplicate tool call id %q", tc.ID)
	}
	seen[tc.ID] = true
	if tc.Name == "" || len(tc.Name) > 64 || !toolName.MatchString(tc.Name) {
		return invalid(i, f("name"), "must be 1-64 characters of [A-Za-z0-9_-]")
	}
	return e.checkArguments(i, f("arguments"), tc.Arguments)
}

// checkMetadata checks the metadata, when given: valid text throughout, a
// JSON object within the size and depth limits, keys of 1-128 bytes.
func (e *Engine) checkMetadata(i int, m *Message) error {
	if m.Metadata == nil {
		return nil
	}
	// json.Marshal would silently turn invalid UTF-8 into U+FFFD.
	if err := checkValue(i, m.Metadata, 0); err != nil {
		return err
	}
	b, err := jsonkey.Marshal(m.Metadata) // as stored (prepare)
	if err != nil {
		return invalid(i, "metadata", "must encode as a JSON object: %v", err)
	}
	if err := e.limits.MetadataTooLarge(i, len(b)); err != nil {
		return err
	}
	// A json.RawMessage value may repeat a key, which the stored object
	// would keep only the last of.
	if path, _, ok := jsonkey.Repeated(b); ok {
		return invalid(i, "metadata", "%q is given twice in one object; give each member once", path)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		// A json.Number past float64 (1e999): recall filters and the
		// snapshots read metadata numbers as float64.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Value, "number ") {
			return invalid(i, "metadata", "holds the %s, out of the range of a 64-bit float", te.Value)
		}
		return invalid(i, "metadata", "must encode as a JSON object: %v", err)
	}
	if d := depth(decoded); d > e.limits.MaxMetadataDepth {
		return invalid(i, "metadata", "nested %d levels deep, at most %d", d, e.limits.MaxMetadataDepth)
	}
	if err := checkValue(i, decoded, 0); err != nil { // NUL in values of any Go type
		return err
	}
	for k := range m.Metadata {
		if k == "" || len(k) > 128 {
			return invalid(i, "metadata", "keys must be 1-128 bytes")
		}
	}
	return nil
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// checkText refuses invalid UTF-8 and NUL bytes, which SQLite, bleve and
// model APIs handle inconsistently.
func checkText(i int, field, s string) error {
	if !utf8.ValidString(s) {
		return invalid(i, field, "must be valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalid(i, field, "must not contain NUL bytes")
	}
	return nil
}

// jsonDepth is the bracket nesting depth of valid JSON text.
func jsonDepth(b []byte) int {
	d, top, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
			top = max(top, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return top
}

// checkValue refuses invalid UTF-8 and NUL bytes in metadata keys and
// string values, walking maps and slices of the JSON kinds (deeper values
// are bounded by the depth check after encoding).
func checkValue(i int, v any, level int) error {
	if level > 64 {
		return nil
	}
	switch t := v.(type) {
	case string:
		return checkText(i, "metadata", t)
	case map[string]any:
		for k, x := range t {
			if err := checkText(i, "metadata", k); err != nil {
				return err
			}
			if err := checkValue(i, x, level+1); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range t {
			if err := checkValue(i, x, level+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// depth is the nesting depth of a decoded JSON value (a scalar is 0).
func depth(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			d = max(d, depth(x))
		}
		return d + 1
	case []any:
		for _, x := range t {
			d = max(d, depth(x))
		}
		return d + 1
	}
	return 0
}

// clip is s cut to its first n bytes, at a character boundary, with "…"
// added when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) { // never inside a character
		n--
	}
	return s[:n] + "…"
}

// checkQuery refuses an explicit recall query longer than
// Limits.MaxQueryBytes (ErrQueryTooLong on the field "query") or holding a
// NUL byte or invalid UTF-8 (refused as in a message's content: the
// lexical index and the embedding APIs treat them inconsistently, and the
// memctx record would store U+FFFD).
func (e *Engine) checkQuery(q string) error {
	if err := checkText(-1, "query", q); err != nil {
		return err
	}
	if n := len(q); n > e.limits.MaxQueryBytes {
		return &ValidationError{Index: -1, Field: "query", Err: ErrQueryTooLong,
			Rule: "at most " + strconv.Itoa(e.limits.MaxQueryBytes) + " bytes, got " + strconv.Itoa(n) + " (a query says what to look for; store long text as a message)"}
	}
	return nil
}

// cutQuery is the first Limits.MaxQueryBytes of q, cut at a character
// boundary: LoadContext's implicit query (the newest user message, which
// may be far longer than a query) is searched by its beginning.
func (e *Engine) cutQuery(q string) string {
	n := e.limits.MaxQueryBytes
	if len(q) <= n {
		return q
	}
	for n > 0 && !utf8.RuneStart(q[n]) {
		n--
	}
	return q[:n]
}
