package salvage

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// orphans are the statements that drop the rows whose owner was lost,
// by table, in order (a working-memory state before its history).
var orphans = []struct{ table, sql string }{
	{"message_blobs", `DELETE FROM message_blobs WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = message_blobs.message_id)`},
	{"embeddings", `DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = embeddings.message_id)`},
	{"outbox", `DELETE FROM outbox WHERE op <> '` + msgstore.OpDelete + `' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = outbox.message_id)`},
	{"observations", `DELETE FROM observations WHERE NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = observations.thread_id)`},
	{"working_memory", `DELETE FROM working_memory WHERE substr(scope, 1, 7) = 'thread:'
		AND NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = substr(working_memory.scope, 8))`},
	{"working_memory_history", `DELETE FROM working_memory_history WHERE NOT EXISTS (SELECT 1 FROM working_memory w WHERE w.scope = working_memory_history.scope)`},
	// What the journal keeps under a thread goes with the thread
	// (journal.DeleteThread, DeleteRuns); runs stay claimed.
	{"journal", `DELETE FROM journal WHERE scope IN ('` + journal.ScopeErased + `', '` + journal.ScopeLost + `', '` + journal.ScopeTool + `', '` + journal.ScopeMemCtx + `',
		'` + journal.ScopeDispatchErased + `') AND thread_id <> '' AND NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = journal.thread_id)`},
	// journal.DanglingDispatches: a dispatch names its stored call and,
	// settled, its stored result.
	{"dispatches", `DELETE FROM dispatches WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = dispatches.message_id AND m.thread_id = dispatches.thread_id)
		OR (result_id <> '' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = dispatches.result_id AND m.thread_id = dispatches.thread_id))`},
}

// rebuildThreads writes the thread row of messages whose thread row was
// lost, from them.
const rebuildThreads = `INSERT INTO threads (id, resource_id, created_at, updated_at, last_active)
	SELECT thread_id, MIN(resource_id), MIN(created_at), MAX(created_at), MAX(created_at) FROM messages m
	WHERE NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = m.thread_id) GROUP BY thread_id`

// seqOfKey is the seq of a journal record keyed "<threadId>:<seq>"
// (journal.ScopeErased, journal.ScopeLost) in SQL.
const seqOfKey = `CAST(substr(j.key, length(j.thread_id) + 2) AS INTEGER)`

// recount sets every thread's derived counters from what was kept:
// message_count, bytes (what quotas read), updated_at (its newest kept
// message's time, its created_at when none is kept: a lost tail's time
// was listed as the last message's) and last_seq, which never goes
// down (seqs are never reused: a lost tail is recorded as lost).
var recount = `UPDATE threads SET
	message_count = (SELECT COUNT(*) FROM messages m WHERE m.thread_id = threads.id),
	updated_at = COALESCE((SELECT MAX(created_at) FROM messages m WHERE m.thread_id = threads.id), created_at),
	bytes = ` + msgstore.ThreadBytesOf("threads.id") + `,
	last_seq = MAX(last_seq,
		COALESCE((SELECT MAX(seq) FROM messages m WHERE m.thread_id = threads.id), 0),
		COALESCE((SELECT MAX(` + seqOfKey + `) FROM journal j WHERE j.scope IN ('` + journal.ScopeErased + `', '` + journal.ScopeLost + `') AND j.thread_id = threads.id), 0))`

// repair migrates the new database to the current schema, then, in one
// transaction, drops the messages whose seq is out of place (seqs.go) and
// those whose text does not match their digest,
// writes again the threads whose row was lost, drops the orphans,
// recomputes the thread counters and records the lost seqs.
func repair(ctx context.Context, dst string, now time.Time, rep *Report) error {
	db, err := store.Open(ctx, dst)
	if err != nil {
		return fmt.Errorf("salvage: migrate %s: %w", dst, err)
	}
	defer store.CloseDB(db)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	defer tx.Rollback()
	misplaced, err := dropMisplaced(ctx, tx) // seqs.go
	if err != nil {
		return err
	}
	garbled, redigested, err := dropGarbled(ctx, tx)
	if err != nil {
		return err
	}
	garbled += misplaced
	if t := rep.table("messages"); t != nil {
		t.Garbled, t.Kept, t.Redigested = t.Garbled+garbled, t.Kept-garbled, redigested // the copy's own garbled rows (valid.go) counted first
	}
	n, err := exec(ctx, tx, rebuildThreads)
	if err != nil {
		return err
	}
	rep.ThreadsRebuilt = int(n)
	for _, o := range orphans {
		n, err := exec(ctx, tx, o.sql)
		if err != nil {
			return err
		}
		if t := rep.table(o.table); t != nil {
			t.Orphans += n
			t.Kept -= n
		}
	}
	if _, err := exec(ctx, tx, recount); err != nil {
		return err
	}
	if err := recordMissing(ctx, tx, now, rep); err != nil { // markers.go
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("salvage: commit: %w", err)
	}
	if _, _, _, err := store.Checkpoint(ctx, db); err != nil {
		return fmt.Errorf("salvage: checkpoint: %w", err)
	}
	return nil
}

func exec(ctx context.Context, tx *sql.Tx, q string) (int64, error) {
	r, err := tx.ExecContext(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("salvage: %w", err)
	}
	return r.RowsAffected()
}

// table returns the report of table name, nil when there is none.
func (r *Report) table(name string) *Table {
	for i := range r.Tables {
		if r.Tables[i].Name == name {
			return &r.Tables[i]
		}
	}
	return nil
}

// recordLost records, as lost by the salvage of now, every seq 1..last_seq
// of every thread that is neither stored, erased nor already lost, and
// returns them as ranges.
func recordLost(ctx context.Context, tx *sql.Tx, now time.Time) ([]journal.LostRange, error) {
	lost, err := missingSeqs(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	return lost, markEach(ctx, tx, lost, now, journal.RecordLost)
}

// missingSeqs returns, as ranges of the salvage of now, every seq
// 1..last_seq of every thread that is neither stored, erased nor already
// lost.
func missingSeqs(ctx context.Context, tx *sql.Tx, now time.Time) ([]journal.LostRange, error) {
	rows, err := tx.QueryContext(ctx, `SELECT t.id, t.resource_id, t.last_seq, s.seq FROM threads t LEFT JOIN (
			SELECT thread_id, seq FROM messages
			UNION SELECT j.thread_id, `+seqOfKey+` FROM journal j WHERE j.scope IN ('`+journal.ScopeErased+`', '`+journal.ScopeLost+`')
		) s ON s.thread_id = t.id ORDER BY t.id, s.seq`)
	if err != nil {
		return nil, fmt.Errorf("salvage: seqs: %w", err)
	}
	var lost []journal.LostRange
	var cur journal.LostRange
	var next int64 // the next seq expected in cur's thread
	flush := func(upto int64) {
		if next <= upto {
			lost = append(lost, journal.LostRange{ThreadID: cur.ThreadID, ResourceID: cur.ResourceID, FromSeq: next, ToSeq: upto, SalvagedAt: now.UTC().Truncate(time.Millisecond)})
		}
	}
	var last int64
	for rows.Next() {
		var id, res string
		var seq sql.NullInt64
		if err := rows.Scan(&id, &res, &last, &seq); err != nil {
			rows.Close()
			return nil, err
		}
		if id != cur.ThreadID {
			if cur.ThreadID != "" {
				flush(cur.ToSeq)
			}
			cur, next = journal.LostRange{ThreadID: id, ResourceID: res, ToSeq: last}, 1
		}
		if seq.Valid && seq.Int64 >= next {
			flush(min(seq.Int64-1, last))
			next = seq.Int64 + 1
		}
	}
	if cur.ThreadID != "" {
		flush(cur.ToSeq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return lost, nil
}

// markEach writes with mark (journal.RecordLost, journal.TombstoneSeq)
// the record of every seq of ranges, at now.
func markEach(ctx context.Context, tx *sql.Tx, ranges []journal.LostRange, now time.Time, mark func(context.Context, store.Conn, string, string, int64, time.Time) error) error {
	for _, r := range ranges {
		for s := r.FromSeq; s <= r.ToSeq; s++ {
			if err := mark(ctx, tx, r.ThreadID, r.ResourceID, s, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropGarbled deletes the messages whose stored digest (msgstore.Digest)
// is not the digest of their text as read: a damaged overflow page (SQLite
// checks no content) or a lost large tool result (message_blobs) leaves a
// row that reads whole but does not say what was appended. Their seqs are
// then recorded as lost like those of unreadable rows. A message whose
// digest alone was hit (digestOnly) is kept, its digest recomputed. It
// returns how many it dropped and how many it kept so.
func dropGarbled(ctx context.Context, tx *sql.Tx) (dropped, redigested int64, err error) {
	bad, err := garbled(ctx, tx)
	if err != nil {
		return 0, 0, err
	}
	for _, m := range bad {
		q, args := `DELETE FROM messages WHERE pk = ?`, []any{m.pk}
		if m.digestOnly {
			q, args = `UPDATE messages SET digest = ? WHERE pk = ?`, []any{m.digest, m.pk}
			redigested++
		} else {
			dropped++
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, 0, fmt.Errorf("salvage: %w", err)
		}
	}
	return dropped, redigested, nil
}

// garbledMessage is a message whose text does not match its digest.
type garbledMessage struct {
	pk     int64
	thread string
	seq    int64
	// digest is the digest of the text as read.
	digest string
	// digestOnly is set when the damage hit the stored digest, not the
	// text (digestOnly's rule).
	digestOnly bool
}

// digestAgree is how many of a stored digest's 64 hex digits must equal
// the recomputed digest's, in place, for the text to be the one digested
// and the digest the damaged value: bytes flipped in place change the
// digits they hit, and leave the others; a text changed by a single bit
// gives a digest whose digits agree with the stored one's by chance, 1 in
// 16 each, 4 of 64 on average: 48 or more has odds below 10^-40.
const digestAgree = 48

// digestOnly reports whether the stored digest differs from the digest of
// the text as read (want) only where damage hit it: it has want's length
// and agrees with it on at least digestAgree digits, in place.
func digestOnly(stored, want string) bool {
	if len(stored) != len(want) {
		return false
	}
	agree := 0
	for i := range len(want) {
		if stored[i] == want[i] {
			agree++
		}
	}
	return agree >= digestAgree
}

// garbled returns the messages whose stored digest is not the digest of
// their text as read through q.
func garbled(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) ([]garbledMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT m.pk, m.thread_id, m.seq, m.role, COALESCE(b.content, m.content), m.name, m.tool_call_id, COALESCE(m.tool_calls, ''), m.digest
		FROM messages m LEFT JOIN message_blobs b ON b.message_id = m.id`)
	if err != nil {
		return nil, fmt.Errorf("salvage: digests: %w", err)
	}
	defer rows.Close()
	var bad []garbledMessage
	for rows.Next() {
		var m garbledMessage
		var role, content, name, callID, calls, dg string
		if err := rows.Scan(&m.pk, &m.thread, &m.seq, &role, &content, &name, &callID, &calls, &dg); err != nil {
			return nil, fmt.Errorf("salvage: digests: %w", err)
		}
		if m.digest = msgstore.Digest(role, content, name, callID, []byte(calls)); m.digest != dg {
			m.digestOnly = digestOnly(dg, m.digest)
			bad = append(bad, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("salvage: digests: %w", err)
	}
	return bad, nil
}
