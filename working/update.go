package working

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/store"
)

// Origin says who wrote a version. All fields are optional; a ToolCallID
// makes the update idempotent for (RunID, ToolCallID): applying it again
// returns the version it wrote instead of writing another.
type Origin struct {
	// RunID is the run that writes the version; "" for none.
	RunID string
	// ToolCallID is the tool call that writes it; with RunID it makes the update idempotent.
	ToolCallID string
	// ResourceID is the resource on whose behalf the update is made; when
	// set, it must own the state (ErrOwnerMismatch otherwise). Empty means
	// an operator's write for whoever owns it (Config.OwnerOf).
	ResourceID string
}

// Result is the outcome of an update.
type Result struct {
	// State is the state after the update: the new version, the unchanged
	// current state, or (Replayed) the version this origin wrote earlier.
	State State
	// Changed is false when the update left the content as it was; then no
	// version was written.
	Changed bool
	// Replayed is true when this origin's tool call had already been applied;
	// nothing was written now.
	Replayed bool
}

// Merge applies a JSON Merge Patch (RFC 7396) to a schema-mode state: the
// fields the patch names change, null deletes a field, arrays are replaced
// whole, an empty patch changes nothing. patch is JSON text when it is a
// json.RawMessage or []byte; any other value (such as a map[string]any) is
// encoded with encoding/json first, so the caller's value is never aliased.
//
// Merge refuses, leaving the state unchanged: a patch that is not a JSON
// object (ErrInvalidPatch), a result the schema rejects (ErrSchemaViolation),
// a result over MaxChars (ErrTooLarge), a template memory (ErrWrongMode), a
// state written in template mode before the configuration changed
// (ErrModeMismatch: Set the whole state to replace it, or MergeOver).
func (m *Memory) Merge(ctx context.Context, key string, patch any, origin Origin) (Result, error) {
	return m.merge(ctx, key, patch, origin, false)
}

// MergeOver is Merge, except that a state written in template mode before
// the configuration changed (Foreign) is replaced rather than refused: the
// patch applies to the initial content "{}", so it becomes the whole
// state (its nulls dropped). The updateWorkingMemory tool uses it: a
// schema-mode model can send only a patch, and the rendered state tells
// it that its next update replaces the document (RenderState). On a state
// of this memory's mode it is Merge.
func (m *Memory) MergeOver(ctx context.Context, key string, patch any, origin Origin) (Result, error) {
	return m.merge(ctx, key, patch, origin, true)
}

// merge is Merge (over: MergeOver).
func (m *Memory) merge(ctx context.Context, key string, patch any, origin Origin, over bool) (Result, error) {
	if err := m.closed(nil); err != nil { // before the arguments: a closed memory answers ErrClosed alone
		return Result{}, err
	}
	if m.cfg.Mode != ModeSchema {
		return Result{}, fmt.Errorf("%w: a merge patch needs schema mode; this memory is a markdown template", ErrWrongMode)
	}
	var raw []byte
	switch p := patch.(type) {
	case json.RawMessage:
		raw = bytes.Clone(p)
	case []byte:
		raw = bytes.Clone(p)
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return Result{}, fmt.Errorf("%w: encode: %v", ErrInvalidPatch, err)
		}
		raw = b
	}
	if m.cfg.Redact != nil && json.Valid(raw) {
		// Redacted before the merge, so no refusal quotes a secret of it.
		raw = []byte(m.cfg.Redact(string(raw)))
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return Result{}, fmt.Errorf("%w: not valid JSON: %v", ErrInvalidPatch, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return Result{}, fmt.Errorf("%w: the update must be a JSON object of the fields to change, got %s", ErrInvalidPatch, jsonKind(v))
	}
	return m.update(ctx, key, origin, func(st State) (string, error) {
		cur := st.Content
		if m.Foreign(st) {
			if !over {
				return "", m.mismatch(st, "a merge patch")
			}
			cur = m.initial()
		}
		merged, err := jsonpatch.MergePatch([]byte(cur), raw)
		if err != nil {
			return "", fmt.Errorf("%w: merge: %v", ErrInvalidPatch, err)
		}
		return m.normalize(merged)
	})
}

// Set replaces the whole state, one written in the other mode before the
// configuration changed included (the new version is in this memory's
// mode; the history keeps the old ones): in schema mode content must be a JSON
// object the schema accepts (ErrInvalidPatch, ErrSchemaViolation; text
// that is not JSON is "content must be a JSON object matching the schema:
// malformed JSON at byte N: …", N counted from 0); in
// template mode it is the new markdown document (ErrInvalidPatch when it is
// not valid UTF-8 or holds U+0000, as every update's state). ErrTooLarge
// over MaxChars.
func (m *Memory) Set(ctx context.Context, key, content string, origin Origin) (Result, error) {
	if err := m.closed(nil); err != nil { // before the arguments: a closed memory answers ErrClosed alone
		return Result{}, err
	}
	if m.cfg.Redact != nil {
		content = m.cfg.Redact(content)
	}
	next := content
	if m.cfg.Mode == ModeSchema {
		v, err := decodeJSON([]byte(content))
		if err != nil {
			return Result{}, fmt.Errorf("%w: content must be a JSON object matching the schema: %v", ErrInvalidPatch, syntaxDetail([]byte(content), err))
		}
		if _, ok := v.(map[string]any); !ok {
			return Result{}, fmt.Errorf("%w: content must be a JSON object matching the schema, got %s", ErrInvalidPatch, jsonKind(v))
		}
		if next, err = m.normalize([]byte(content)); err != nil {
			return Result{}, err
		}
	}
	return m.update(ctx, key, origin, func(State) (string, error) { return next, nil })
}

// Edit replaces the one occurrence of search in a template-mode document
// with replace. It refuses with ErrSearchNotFound or ErrSearchNotUnique
// unless search occurs exactly once, ErrInvalidPatch for an empty search,
// ErrWrongMode on a schema memory, ErrModeMismatch on a state written in
// schema mode before the configuration changed (Set the whole document to
// replace it) and ErrTooLarge over MaxChars.
func (m *Memory) Edit(ctx context.Context, key, search, replace string, origin Origin) (Result, error) {
	if err := m.closed(nil); err != nil { // before the arguments: a closed memory answers ErrClosed alone
		return Result{}, err
	}
	if m.cfg.Mode != ModeTemplate {
		return Result{}, fmt.Errorf("%w: search/replace needs template mode; this memory is a JSON object (send the fields to change)", ErrWrongMode)
	}
	if search == "" {
		return Result{}, fmt.Errorf("%w: search is empty", ErrInvalidPatch)
	}
	return m.update(ctx, key, origin, func(st State) (string, error) {
		if m.Foreign(st) {
			return "", m.mismatch(st, "search/replace")
		}
		cur := st.Content
		switch n := strings.Count(cur, search); n {
		case 1:
			return strings.Replace(cur, search, replace, 1), nil
		case 0:
			return "", fmt.Errorf("%w: %q does not occur in the working memory; copy the exact passage", ErrSearchNotFound, m.quote(search))
		default:
			return "", fmt.Errorf("%w: %q occurs %d times; include more surrounding text so it occurs once", ErrSearchNotUnique, m.quote(search), n)
		}
	})
}

// mismatch is the refusal of a partial update (what) of st, a state
// written in the other mode: ErrModeMismatch naming the key, both modes
// and the way out.
func (m *Memory) mismatch(st State, what string) error {
	return fmt.Errorf("%w: %s was written in %s mode and the working memory is now in %s mode; %s needs a %s-mode state: set the whole state to replace it",
		ErrModeMismatch, st.Key, st.Mode, m.cfg.Mode, what, m.cfg.Mode)
}

// normalize validates a merged JSON object against the schema and returns it
// as compact JSON with sorted keys, so equal states have equal bytes.
func (m *Memory) normalize(b []byte) (string, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidPatch, err)
	}
	if err := m.schema.validate(v); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidPatch, err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// update runs the optimistic loop: read, compute, compare-and-swap on the
// version; on a lost swap, read again and recompute. Config.Wrote sees
// its outcome.
func (m *Memory) update(ctx context.Context, key string, origin Origin, compute func(cur State) (string, error)) (Result, error) {
	r, err := m.updateOpen(ctx, key, origin, compute)
	err = m.closed(err)
	if m.cfg.Wrote != nil {
		err = m.cfg.Wrote(err == nil && r.Changed && !r.Replayed, err)
	}
	return r, err
}

// updateOpen is update without Config.Closed's last look.
func (m *Memory) updateOpen(ctx context.Context, key string, origin Origin, compute func(cur State) (string, error)) (Result, error) {
	if err := m.closed(nil); err != nil {
		return Result{}, err
	}
	if err := m.checkKey(key); err != nil {
		return Result{}, err
	}
	if m.cfg.Writable != nil {
		if err := m.cfg.Writable(); err != nil {
			return Result{}, err
		}
	}
	// The owner first: a replayed origin must not read back another
	// resource's state.
	if _, err := m.owner(ctx, m.conn, key, origin); err != nil {
		return Result{}, err
	}
	if origin.ToolCallID != "" {
		if r, ok, err := m.applied(ctx, m.conn, key, origin); err != nil || ok {
			return r, err
		}
	}
	for attempt := 0; attempt < m.cfg.MaxRetries; attempt++ {
		cur, err := m.Get(ctx, key)
		if err != nil {
			return Result{}, err
		}
		next, err := compute(cur)
		if err != nil {
			return Result{}, m.redactErr(err)
		}
		if next, err = m.redact(next); err != nil {
			return Result{}, err
		}
		if next == cur.Content && !m.Foreign(cur) {
			return Result{State: cur}, nil
		}
		if !utf8.ValidString(next) {
			// Prompts and JSON carry text: a state that is not UTF-8 (a
			// binary file given to wm set) would reach them as U+FFFD.
			return Result{}, fmt.Errorf("%w: the state is not valid UTF-8 text", ErrInvalidPatch)
		}
		if strings.IndexByte(next, 0) >= 0 {
			// Postgres's text refuses U+0000 (a bare 500 before), and
			// messages and metadata refuse it on both backends.
			return Result{}, fmt.Errorf("%w: the state holds a NUL character (U+0000, at byte %d); remove it", ErrInvalidPatch, strings.IndexByte(next, 0))
		}
		if n := utf8.RuneCountInString(next); n > m.cfg.MaxChars {
			return Result{}, fmt.Errorf("%w: %d characters, the limit is %d; keep it shorter", ErrTooLarge, n, m.cfg.MaxChars)
		}
		r, ok, err := m.swap(ctx, cur, next, origin)
		if err != nil || ok {
			return r, err
		}
		// Lost the swap: another update committed. Back off a little, with
		// jitter so the losers do not collide again in lockstep.
		d := time.Duration(rand.Int64N(int64(attempt+1) * int64(time.Millisecond)))
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	return Result{}, fmt.Errorf("%w: %s: gave up after %d attempts", ErrConflict, key, m.cfg.MaxRetries)
}

// owner resolves the resource that owns key and checks origin against it.
func (m *Memory) owner(ctx context.Context, q Querier, key string, origin Origin) (string, error) {
	var owner string
	switch {
	case m.cfg.OwnerOf != nil:
		o, err := m.cfg.OwnerOf(ctx, q, key)
		if err != nil {
			return "", err
		}
		owner = o
	case origin.ResourceID != "":
		owner = origin.ResourceID
	default:
		if s, id, _ := ParseKey(key); s == ScopeResource {
			owner = id
		}
	}
	if origin.ResourceID != "" && origin.ResourceID != owner {
		return "", ErrOwnerMismatch
	}
	return owner, nil
}

// applied looks up the version an origin's tool call wrote.
func (m *Memory) applied(ctx context.Context, q Querier, key string, origin Origin) (Result, bool, error) {
	st := State{Key: key}
	var ms int64
	var mode string
	err := q.QueryRowContext(ctx,
		`SELECT version, mode, content, updated_at FROM working_memory_history
		 WHERE scope = ? AND run_id = ? AND tool_call_id = ? ORDER BY version LIMIT 1`,
		key, origin.RunID, origin.ToolCallID).Scan(&st.Version, &mode, &st.Content, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("working: look up %s %s/%s: %w", key, origin.RunID, origin.ToolCallID, err)
	}
	st.Mode, st.UpdatedAt = historyMode(mode, m.cfg.Mode), time.UnixMilli(ms).UTC()
	return Result{State: st, Changed: true, Replayed: true}, true, nil
}

// swap writes next as version cur.Version+1 if the stored version is still
// cur.Version. ok is false when another writer got there first: on
// SQLite the write transaction waits for the other's (BEGIN IMMEDIATE);
// on Postgres the UPDATE waits for the other's row lock and then finds
// the version changed, and the INSERT of a first version waits for the
// other's row and then does nothing (READ COMMITTED), so either way the
// loser writes no row.
func (m *Memory) swap(ctx context.Context, cur State, next string, origin Origin) (r Result, ok bool, err error) {
	btx, err := store.Begin(ctx, m.db, nil)
	if err != nil {
		return Result{}, false, fmt.Errorf("working: update %s: %w", cur.Key, err)
	}
	defer func() {
		if !ok || err != nil {
			btx.Rollback()
		}
	}()
	tx := store.Bound(btx)
	// Inside the write lock: the owner again (the thread may have been
	// erased and created anew since), and another process may have applied
	// this very call.
	owner, err := m.owner(ctx, tx, cur.Key, origin)
	if err != nil {
		return Result{}, false, err
	}
	if owner == "" && m.cfg.OwnerOf == nil {
		owner = cur.ResourceID // unbound memory, operator write: keep the owner
	}
	if cur.Version > 0 && cur.ResourceID != owner {
		// Written for another owner than the key has now: never build on it.
		return Result{}, false, ErrOwnerMismatch
	}
	if origin.ToolCallID != "" {
		if r, done, err := m.applied(ctx, tx, cur.Key, origin); err != nil || done {
			if err == nil {
				if err = store.CommitError(ctx, btx.Commit()); err != nil {
					err = fmt.Errorf("working: update %s: %w", cur.Key, err)
				}
			}
			return r, done, err
		}
	}
	// The run's check, in the write's transaction before its statements:
	// on SQLite no erasure commits until this one does; on Postgres the
	// engine's check takes a lock an erasure of the run's resource waits
	// for, which must come before the row locks below (an erasure holding
	// it may rewrite this very row).
	if origin.RunID != "" && m.cfg.RunCheck != nil {
		if err := m.cfg.RunCheck(ctx, tx, origin.RunID); err != nil {
			return Result{}, false, err
		}
	}
	ms := m.cfg.Now().UnixMilli()
	if done, err := m.writeVersion(ctx, tx, cur, next, owner, origin, ms); err != nil || !done {
		return Result{}, false, err
	}
	version := cur.Version + 1
	if m.beforeCommit != nil {
		m.beforeCommit(btx)
	}
	// After the context is done database/sql rolls back and refuses the
	// commit: store.CommitError makes that refusal match ctx.Err().
	if err := store.CommitError(ctx, btx.Commit()); err != nil {
		return Result{}, false, fmt.Errorf("working: update %s: %w", cur.Key, err)
	}
	st := State{Key: cur.Key, Mode: m.cfg.Mode, Content: next, Version: version, UpdatedAt: time.UnixMilli(ms).UTC(), ResourceID: owner}
	return Result{State: st, Changed: true}, true, nil
}

// writeVersion writes next as version cur.Version+1 of cur's key, in m's
// mode, written at ms (Unix milliseconds) for owner by origin: the state's
// row and its history entry, in tx. done is false when the row had moved
// on (another writer's version, or the state gone): nothing was written.
func (m *Memory) writeVersion(ctx context.Context, tx store.Conn, cur State, next, owner string, origin Origin, ms int64) (done bool, err error) {
	var res sql.Result
	if cur.Version == 0 {
		res, err = tx.ExecContext(ctx,
			`INSERT INTO working_memory (scope, mode, content, version, updated_at, resource_id) VALUES (?, ?, ?, 1, ?, ?)
			 ON CONFLICT (scope) DO NOTHING`, cur.Key, string(m.cfg.Mode), next, ms, owner)
	} else {
		// mode = ? holds cur's mode: a state of the other mode that Set
		// replaces takes this memory's.
		res, err = tx.ExecContext(ctx,
			`UPDATE working_memory SET mode = ?, content = ?, version = version + 1, updated_at = ?
			 WHERE scope = ? AND version = ? AND mode = ? AND resource_id = ?`,
			string(m.cfg.Mode), next, ms, cur.Key, cur.Version, string(cur.Mode), owner)
	}
	if err != nil {
		return false, fmt.Errorf("working: update %s: %w", cur.Key, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	version := cur.Version + 1
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO working_memory_history (scope, version, mode, content, run_id, tool_call_id, updated_at, resource_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		cur.Key, version, string(m.cfg.Mode), next, origin.RunID, origin.ToolCallID, ms, owner); err != nil {
		return false, fmt.Errorf("working: record version %d of %s: %w", version, cur.Key, err)
	}
	return true, nil
}

// redact applies Config.Redact to a content about to be stored; in schema
// mode the result is validated and normalised again.
func (m *Memory) redact(next string) (string, error) {
	if m.cfg.Redact == nil {
		return next, nil
	}
	red := m.cfg.Redact(next)
	if red == next || m.cfg.Mode != ModeSchema {
		return red, nil
	}
	return m.normalize([]byte(red))
}

// redactErr returns err with Config.Redact applied to its message (a schema
// refusal quotes the offending value, which may be a secret, and the message
// reaches the model and the journal). errors.Is and errors.As still see err.
func (m *Memory) redactErr(err error) error {
	if m.cfg.Redact == nil {
		return err
	}
	msg := m.cfg.Redact(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// quote is a passage of the caller's text for a refusal, redacted.
func (m *Memory) quote(s string) string {
	if m.cfg.Redact != nil {
		s = m.cfg.Redact(s)
	}
	return preview(s)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// preview shortens s for an error message.
func preview(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// syntaxDetail words err, decodeJSON's error for text b, with the byte at
// fault: "malformed JSON at byte 1: invalid character 'o' in literal null
// (expecting 'u')", "malformed JSON at byte 13: unexpected end of JSON
// input"; a repeated key's or trailing data's error says its place
// already. encoding/json's Decoder gives a truncated text no offset, so
// the text is parsed again for it.
func syntaxDetail(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if !errors.As(json.Unmarshal(b, new(any)), &se) {
		return err
	}
	return fmt.Errorf("malformed JSON at byte %d: %w", jsonkey.SyntaxOffset(se), jsonkey.NamedSyntax(b, se))
}
