package working

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/mnemo-go/mnemo/internal/store"
)

// RebuildResult says what Rebuild changed.
type RebuildResult struct {
	// Invalidated counts the versions removed from the history: the ones
	// drop selected, and later ones whose change no longer applies (or no
	// longer changes anything) without them.
	Invalidated int
	// Rewritten counts the versions kept with a rebuilt content.
	Rewritten int
	// Cleared is true when no version was left: the state is back to its
	// initial content under a new version (the newest plus one, in the
	// history without run or tool call). The state is not deleted, so its
	// numbering goes on: a version number names one content for the life of
	// the store, and a later write never reuses an erased version's number.
	Cleared bool
}

// Rebuild re-derives the state of key, inside the caller's transaction,
// without the versions that drop selects: an erasure uses it to forget what
// runs that saw an erased turn wrote. It reads the history in order and
// re-applies the change each remaining version made to the version before
// it (schema mode: the JSON Merge Patch from the previous content to its
// content, RFC 7396 via evanphx/json-patch; template mode: the one edited
// passage, found in the rebuilt document by its surrounding text) on the
// state rebuilt so far, starting from the initial content initial returns
// for the first version's mode (the never-written state: "{}" or the
// template; a nil initial means "{}" or ""). A version written in another
// mode than the one before it (a Set after the configuration changed) is
// a whole state and is kept as it is. A change that no longer applies, or
// no longer changes anything, is dropped as well. Kept versions keep their number,
// run, tool call, time and owner, with their content rebuilt; dropped ones
// leave the history. When the current state changes, it gets a new version
// (the newest plus one, recorded in the history without run or tool call),
// so a writer that read the old state loses its compare-and-swap and
// merges again on the rebuilt one; with no version left, that new version
// holds the initial content of the state's mode (RebuildResult.Cleared): versions are never
// numbered again, even when all of them are erased. The rebuilt states are not validated
// against a schema: removing changes from a valid history gives a state the
// schema accepted as the fields' values, not a new one.
//
// Rebuild writes nothing when drop selects no version. tx is the caller's
// transaction, on SQLite or Postgres.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Rebuild(ctx context.Context, tx store.Conn, key string, initial func(Mode) string, now time.Time, drop func(Version) bool) (RebuildResult, error) {
	return rebuild(ctx, store.Bound(tx), key, initial, now, drop)
}

// rebuild is Rebuild on a bound tx (store.Bound).
func rebuild(ctx context.Context, tx store.Conn, key string, initial func(Mode) string, now time.Time, drop func(Version) bool) (RebuildResult, error) {
	var res RebuildResult
	var mode, owner string
	var current int64
	err := tx.QueryRowContext(ctx, `SELECT mode, version, resource_id FROM working_memory WHERE scope = ?`, key).Scan(&mode, &current, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("working: rebuild %s: %w", key, err)
	}
	hist, err := historyTx(ctx, tx, key)
	if err != nil {
		return res, err
	}
	if !anyDropped(hist, drop) {
		return res, nil
	}
	start := initialOf(initial, historyMode(string(hist[0].Mode), Mode(mode)))
	kept, cur := replayHistory(hist, Mode(mode), start, drop, &res)
	if err := rewriteHistory(ctx, tx, key, hist, kept); err != nil {
		return res, err
	}
	// With no version left the state is cleared to the initial content
	// of the state's last mode, not deleted: the row keeps the numbering,
	// so the clearing is the next version and no later write reuses an
	// erased one's number.
	res.Cleared = len(kept) == 0
	if res.Cleared {
		cur = State{Mode: Mode(mode), Content: initialOf(initial, Mode(mode))}
	}
	if newest := hist[len(hist)-1]; !res.Cleared && kept[len(kept)-1].Version == newest.Version && cur.Content == newest.Content {
		return res, nil // the newest version survives as it was
	}
	ms := now.UnixMilli()
	if _, err := tx.ExecContext(ctx, `INSERT INTO working_memory_history (scope, version, mode, content, run_id, tool_call_id, updated_at, resource_id)
		VALUES (?, ?, ?, ?, '', '', ?, ?)`, key, current+1, string(cur.Mode), cur.Content, ms, owner); err != nil {
		return res, fmt.Errorf("working: rebuild %s: %w", key, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE working_memory SET mode = ?, content = ?, version = ?, updated_at = ? WHERE scope = ?`,
		string(cur.Mode), cur.Content, current+1, ms, key); err != nil {
		return res, fmt.Errorf("working: rebuild %s: %w", key, err)
	}
	return res, nil
}

// initialOf is the never-written content of mode: initial's, else "{}"
// or "".
func initialOf(initial func(Mode) string, mode Mode) string {
	switch {
	case initial != nil:
		return initial(mode)
	case mode == ModeSchema:
		return "{}"
	}
	return ""
}

// replayHistory re-applies, from start (the initial content of the first
// version's mode), the change each version of hist that drop does not
// select made to the version before it, and returns the versions kept
// (their content rebuilt) and the state they lead to (its content and
// mode). A version of another mode than the one before it was a whole
// state written after the configuration changed (Set): it is kept as it
// is. One of the mode before it whose change no longer applies — or
// changes nothing, or applies to a state of the other mode, the switch
// it followed being dropped — is dropped as well. res counts them.
func replayHistory(hist []Version, rowMode Mode, start string, drop func(Version) bool, res *RebuildResult) ([]Version, State) {
	prev := State{Mode: historyMode(string(hist[0].Mode), rowMode), Content: start}
	cur := prev
	var kept []Version
	for _, v := range hist {
		before := prev
		v.Mode = historyMode(string(v.Mode), rowMode)
		prev = State{Mode: v.Mode, Content: v.Content}
		if drop(v) {
			res.Invalidated++
			continue
		}
		next, ok := v.Content, true
		switch {
		case v.Mode != before.Mode: // a whole state of the new mode
		case v.Mode != cur.Mode:
			ok = false
		case v.Mode == ModeSchema:
			next, ok = applyMerge(before.Content, v.Content, cur.Content)
		default:
			next, ok = applyText(before.Content, v.Content, cur.Content)
		}
		if !ok || (next == cur.Content && v.Mode == cur.Mode) {
			res.Invalidated++
			continue
		}
		if next != v.Content {
			res.Rewritten++
		}
		cur, v.Content = State{Mode: v.Mode, Content: next}, next
		kept = append(kept, v)
	}
	return kept, cur
}

func anyDropped(hist []Version, drop func(Version) bool) bool {
	for _, v := range hist {
		if drop(v) {
			return true
		}
	}
	return false
}

// historyTx reads the history of key, oldest first.
func historyTx(ctx context.Context, tx store.Conn, key string) ([]Version, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version, mode, content, run_id, tool_call_id, updated_at
		FROM working_memory_history WHERE scope = ? ORDER BY version`, key)
	return scanVersions(rows, err, key)
}

// rewriteHistory deletes the versions of hist that are not kept and writes
// the rebuilt content of the kept ones.
func rewriteHistory(ctx context.Context, tx store.Conn, key string, hist, kept []Version) error {
	content := make(map[int64]string, len(kept))
	for _, v := range kept {
		content[v.Version] = v.Content
	}
	for _, v := range hist {
		c, ok := content[v.Version]
		var err error
		switch {
		case !ok:
			_, err = tx.ExecContext(ctx, `DELETE FROM working_memory_history WHERE scope = ? AND version = ?`, key, v.Version)
		case c != v.Content:
			_, err = tx.ExecContext(ctx, `UPDATE working_memory_history SET content = ? WHERE scope = ? AND version = ?`, c, key, v.Version)
		}
		if err != nil {
			return fmt.Errorf("working: rebuild %s version %d: %w", key, v.Version, err)
		}
	}
	return nil
}

// applyMerge re-applies, on cur, the merge patch that took prev to next.
func applyMerge(prev, next, cur string) (string, bool) {
	patch, err := jsonpatch.CreateMergePatch([]byte(prev), []byte(next))
	if err != nil {
		return "", false
	}
	merged, err := jsonpatch.MergePatch([]byte(cur), patch)
	if err != nil {
		return "", false
	}
	v, err := decodeJSON(merged)
	if err != nil {
		return "", false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(buf.String(), "\n"), true
}

// applyText re-applies, on cur, the edit that took prev to next: the
// passage between their common prefix and suffix, found in cur with as
// much surrounding text of prev as makes it occur exactly once (8 bytes
// more at a time, on both sides, then, for a replaced passage, on one side
// only, since the text on one side may be what was dropped). An insertion
// at the very start or end of prev goes at the start or end of cur. It
// fails when no such anchor is in cur.
func applyText(prev, next, cur string) (string, bool) {
	if cur == prev {
		return next, true
	}
	p := 0
	for p < len(prev) && p < len(next) && prev[p] == next[p] {
		p++
	}
	s := 0
	for s < len(prev)-p && s < len(next)-p && prev[len(prev)-1-s] == next[len(next)-1-s] {
		s++
	}
	old, repl := prev[p:len(prev)-s], next[p:len(next)-s]
	switch {
	case old == "" && s == 0:
		return cur + repl, true
	case old == "" && p == 0:
		return repl + cur, true
	}
	for k := 0; ; k += 8 {
		before := prev[max(0, p-k):p]
		after := prev[len(prev)-s : min(len(prev), len(prev)-s+k)]
		cands := [][2]string{{before, after}}
		if old != "" { // an insertion has no text of its own: anchor it on both sides
			cands = append(cands, [2]string{"", after}, [2]string{before, ""})
		}
		for _, c := range cands {
			pat := c[0] + old + c[1]
			if pat != "" && strings.Count(cur, pat) == 1 {
				i := strings.Index(cur, pat)
				return cur[:i] + c[0] + repl + c[1] + cur[i+len(pat):], true
			}
		}
		if k >= max(p, s) {
			return "", false // all of prev is context and still no anchor
		}
	}
}
