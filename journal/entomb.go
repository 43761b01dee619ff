package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Entomb describes the erased owners whose ids an erasure replaces with
// opaque tombstones wherever the journal keeps a record of them (memctx
// records, tool applications, run owners). The caller (the engine) owns
// the tombstone function and its key; the journal only applies it. It is
// for mnemo's own packages, as are the functions that take it.
type Entomb struct {
	// Of returns the tombstone of an id; the same id must map to the same
	// tombstone within one erasure.
	Of func(id string) string
	// Deleted holds the ids of the deleted threads.
	Deleted map[string]bool
	// Resource is the erased resource, "" when the erasure erases none.
	Resource string
	// Owner is the resource that owns the deleted threads. A record of a
	// deleted thread made under another resource (its LoadContext before
	// Owner created the thread) keeps its query: it is that resource's, not
	// the thread's. "" scrubs every record's query.
	Owner string
	// Keep names the resources whose records of a deleted thread's id stay
	// as they are (thread id, query and all): their runs were recorded
	// under the id before Owner created the thread, and are theirs
	// (EntombThread, EntombMemCtx).
	Keep []string
}

// keepSQL returns the condition that leaves en.Keep's rows alone, with
// its arguments numbered from next: "" and none when Keep is empty.
func (en Entomb) keepSQL(next int) (string, []any) {
	if len(en.Keep) == 0 {
		return "", nil
	}
	marks := make([]string, len(en.Keep))
	args := make([]any, len(en.Keep))
	for i, r := range en.Keep {
		marks[i], args[i] = fmt.Sprintf("?%d", next+i), r
	}
	return " AND resource_id NOT IN (" + strings.Join(marks, ", ") + ")", args
}

// resource returns the resource id a record keeps: the tombstone of the
// erased resource, any other as it is.
func (en Entomb) resource(current string) string {
	if en.Resource != "" && current == en.Resource {
		return en.Of(en.Resource)
	}
	return current
}

// NamedThreads returns, in tx, the threads the runs, memctx records and
// observations of resource name (threads that never got a message are in
// no threads table), each once. It reads observe's observations table in
// the same statement, read-only.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func NamedThreads(ctx context.Context, tx store.Conn, resource string) ([]string, error) {
	tx = store.Bound(tx)
	rows, err := tx.QueryContext(ctx, namedThreads, resource, ScopeMemCtx)
	if err != nil {
		return nil, fmt.Errorf("journal: erase: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("journal: erase: %w", err)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}

// namedThreads is NamedThreads' statement: UNION ALL, the duplicates
// dropped in Go. With UNION, SQLite's planner (the driver's build) merged
// the three in thread order, walking journal_by_thread (scope=?): every
// memctx record of the store, 4 to 6 s a DeleteResource at 200,000 runs,
// in its transaction.
const namedThreads = `SELECT thread_id FROM runs WHERE resource_id = ?1
	UNION ALL SELECT thread_id FROM journal WHERE scope = ?2 AND resource_id = ?1
	UNION ALL SELECT thread_id FROM observations WHERE resource_id = ?1`

// everyScope names the journal's scopes as the table s(scope), each found
// by a seek of the primary key from the one before, so that a statement on
// a thread's or a resource's rows of every scope seeks journal_by_thread
// or journal_by_resource (scope first) once a scope. With thread_id or
// resource_id alone, SQLite's planner scanned every row of the journal
// (EXPLAIN QUERY PLAN: SCAN journal), one per memctx record ever kept, in
// every erasure's transaction, and Postgres read the whole index.
const everyScope = `WITH RECURSIVE s(scope) AS (SELECT MIN(scope) FROM journal
	UNION ALL SELECT (SELECT MIN(scope) FROM journal WHERE scope > s.scope) FROM s WHERE s.scope IS NOT NULL) `

// The journal rows' owners in EntombThread and EntombResource.
const (
	entombThreadJournal = everyScope + `UPDATE journal SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END
		WHERE scope IN (SELECT scope FROM s) AND thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`
	entombResourceJournal = everyScope + `UPDATE journal SET resource_id = ?2 WHERE scope IN (SELECT scope FROM s) AND resource_id = ?1`
)

// EntombThread entombs, in tx, thread t in the journal's records of it:
// its memctx records (EntombMemCtx), then the owners of its runs and the
// thread and resource of its journal rows. When only is not empty, just
// the rows recorded under resource only are touched (t is not only's own
// thread); the rows of en.Keep's resources never are.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombThread(ctx context.Context, tx store.Conn, en Entomb, t, only string) error {
	tx = store.Bound(tx)
	if err := EntombMemCtx(ctx, tx, en, t, only); err != nil {
		return err
	}
	keep, keepArgs := en.keepSQL(6)
	for _, q := range []string{
		`UPDATE runs SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)` + keep,
		entombThreadJournal + keep,
	} {
		args := append([]any{t, en.Of(t), en.Resource, en.resource(en.Resource), only}, keepArgs...)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("journal: erase: tombstone thread owner: %w", err)
		}
	}
	return nil
}

// EntombRunIDs replaces, in tx, the ids of the erased owners' runs owned
// by tomb (an entombed thread) that contain an erased id — one of threads,
// or the erased resource, as "ana@example.com:turn-1" does — with their
// own tombstones: the id kept nowhere includes the run ids that spell it.
// Such a run id is then no longer claimed under its old spelling. The
// erasure has already deleted the records keyed by those run ids (memctx
// records, tool applications). A run of another resource on the thread id
// is that resource's, whatever its id spells: it is not touched here.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombRunIDs(ctx context.Context, tx store.Conn, en Entomb, tomb string, threads []string) error {
	tx = store.Bound(tx)
	runs, err := runsOf(ctx, tx, tomb)
	if err != nil {
		return err
	}
	for _, r := range runs {
		spells := en.Resource != "" && strings.Contains(r.id, en.Resource)
		for _, t := range threads {
			spells = spells || strings.Contains(r.id, t)
		}
		if !spells || !en.erased(r.resource) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET id = ? WHERE id = ?`, en.Of(r.id), r.id); err != nil {
			return fmt.Errorf("journal: erase: tombstone run id: %w", err)
		}
	}
	return nil
}

// erased reports whether resource (as a run row keeps it, maybe already a
// tombstone) is an erased owner: en.Owner or en.Resource. With neither
// set, every resource is.
func (en Entomb) erased(resource string) bool {
	if en.Owner == "" && en.Resource == "" {
		return true
	}
	for _, o := range []string{en.Owner, en.Resource} {
		if o != "" && (resource == o || resource == en.Of(o)) {
			return true
		}
	}
	return false
}

// runOwned is a run of a thread, with its resource.
type runOwned struct{ id, resource string }

// runsOf returns, in tx, the runs thread owns.
func runsOf(ctx context.Context, tx store.Conn, thread string) ([]runOwned, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, resource_id FROM runs WHERE thread_id = ?`, thread)
	if err != nil {
		return nil, fmt.Errorf("journal: erase: %w", err)
	}
	defer rows.Close()
	var out []runOwned
	for rows.Next() {
		var r runOwned
		if err := rows.Scan(&r.id, &r.resource); err != nil {
			return nil, fmt.Errorf("journal: erase: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: erase: %w", err)
	}
	return out, nil
}

// EntombResource replaces, in tx, the erased resource en.Resource with its
// tombstone as the owner of every run and journal row.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombResource(ctx context.Context, tx store.Conn, en Entomb) error {
	tx = store.Bound(tx)
	for _, q := range []string{
		`UPDATE runs SET resource_id = ?2 WHERE resource_id = ?1`,
		entombResourceJournal,
	} {
		if _, err := tx.ExecContext(ctx, q, en.Resource, en.Of(en.Resource)); err != nil {
			return fmt.Errorf("journal: erase: tombstone resource owner: %w", err)
		}
	}
	return nil
}

// EntombMemCtx rewrites, in tx, the memctx records of thread t (only those
// recorded under resource only, when it is not empty; never en.Keep's): its thread and
// resource become tombstones, and so do the thread and message ids of
// every reference to a deleted thread's turn (replay reports them as no
// longer stored); the query goes (it was about the erased conversation).
// A record that cannot be decoded is deleted.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombMemCtx(ctx context.Context, tx store.Conn, en Entomb, t, only string) error {
	tx = store.Bound(tx)
	rows, err := tx.QueryContext(ctx, `SELECT key, output FROM journal WHERE scope = ?1 AND thread_id = ?2 AND (?3 = '' OR resource_id = ?3)`, ScopeMemCtx, t, only)
	if err != nil {
		return fmt.Errorf("journal: erase: read memctx records: %w", err)
	}
	var updates []rewrite
	for rows.Next() {
		var key string
		var out []byte
		if err := rows.Scan(&key, &out); err != nil {
			rows.Close()
			return fmt.Errorf("journal: erase: read memctx records: %w", err)
		}
		var rec MemCtx
		if json.Unmarshal(out, &rec) != nil {
			updates = append(updates, rewrite{key, nil})
			continue
		}
		if slices.Contains(en.Keep, rec.ResourceID) {
			continue // another resource's run on the id: its own
		}
		rec.entomb(en)
		b, err := marshalRecord(&rec)
		if err != nil {
			rows.Close()
			return fmt.Errorf("journal: erase: encode memctx %s: %w", key, err)
		}
		updates = append(updates, rewrite{key, b})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal: erase: read memctx records: %w", err)
	}
	return applyRewrites(ctx, tx, updates, "tombstone")
}

// entomb rewrites rec in place (see EntombMemCtx).
func (rec *MemCtx) entomb(en Entomb) {
	own := en.Owner == "" || rec.ResourceID == en.Owner
	rec.ThreadID, rec.ResourceID = en.Of(rec.ThreadID), en.resource(rec.ResourceID)
	if rec.Query != "" && own {
		rec.Query = ErasedPreview
	}
	for _, list := range [][]Ref{rec.Recalled, rec.Recent, rec.Dropped, rec.Unsettled} {
		for i := range list {
			en.ref(&list[i])
		}
	}
	for i := range rec.Observations {
		en.observation(&rec.Observations[i])
	}
	rec.Options.Filter, _ = en.filter(rec.Options.Filter)
}

// ref entombs r when it names a turn of a deleted thread: its thread and
// message ids become tombstones and its preview ErasedPreview (seq and
// role stay). It reports whether it did.
func (en Entomb) ref(r *Ref) bool {
	if !en.Deleted[r.ThreadID] {
		return false
	}
	r.ThreadID, r.MessageID, r.Preview = en.Of(r.ThreadID), en.Of(r.MessageID), ErasedPreview
	return true
}

// observation entombs the thread of o when it is a deleted thread, and
// reports whether it did.
func (en Entomb) observation(o *ObservationRef) bool {
	if !en.Deleted[o.ThreadID] {
		return false
	}
	o.ThreadID = en.Of(o.ThreadID)
	return true
}

// filter returns raw (a run's recall filter, JSON) with every string value
// that is a deleted thread's id ({"threadId": "t1"}, a $in list)
// replaced by its tombstone, and whether it changed anything. A filter that
// does not decode is returned as it is (PutMemCtx stored what recall
// accepted).
func (en Entomb) filter(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || len(en.Deleted) == 0 {
		return raw, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers stay as written
	var v any
	if d.Decode(&v) != nil {
		return raw, false
	}
	v, changed := en.value(v)
	if !changed {
		return raw, false
	}
	b, err := marshalRecord(v)
	if err != nil {
		return raw, false
	}
	return b, true
}

// value entombs the strings of a decoded JSON value that are deleted
// threads' ids, in place, and reports whether it changed any.
func (en Entomb) value(v any) (any, bool) {
	changed := false
	switch x := v.(type) {
	case string:
		if en.Deleted[x] {
			return en.Of(x), true
		}
	case []any:
		for i := range x {
			var c bool
			x[i], c = en.value(x[i])
			changed = changed || c
		}
	case map[string]any:
		for k := range x {
			var c bool
			x[k], c = en.value(x[k])
			changed = changed || c
		}
	}
	return v, changed
}
