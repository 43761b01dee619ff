package msgstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the statements of the outbox: the index maintenance
// queued in write transactions and drained after commit (the engine's
// drainer decides what to do with each row, when to retry and how long to
// wait; the rows and their queries are here).

// Outbox operations (outbox.op).
const (
	OpIndex  = "index"  // index the message lexically and embed it
	OpEmbed  = "embed"  // indexed lexically; embedding still owed
	OpDelete = "delete" // remove the message from the indexes
)

// DueOutbox returns up to limit outbox rows whose backoff has passed at
// now, oldest first.
func (s *Store) DueOutbox(ctx context.Context, now time.Time, limit int) ([]OutboxRow, error) {
	return collectOutbox(s.conn.QueryContext(ctx, `SELECT id, op, message_id, resource_id, attempts FROM outbox
		WHERE not_before <= ? ORDER BY id LIMIT ?`, now.UnixMilli(), limit))
}

// collectOutbox scans and closes rows of (id, op, message_id, resource_id,
// attempts); err is the query's.
func collectOutbox(rs *sql.Rows, err error) ([]OutboxRow, error) {
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	defer rs.Close()
	var out []OutboxRow
	for rs.Next() {
		var r OutboxRow
		if err := rs.Scan(&r.ID, &r.Op, &r.MessageID, &r.Resource, &r.Attempts); err != nil {
			return nil, fmt.Errorf("read outbox: %w", err)
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// NextOutboxDue returns when the outbox's earliest row falls due; ok is
// false when the outbox is empty.
func (s *Store) NextOutboxDue(ctx context.Context) (at time.Time, ok bool, err error) {
	var next sql.NullInt64
	if err := s.conn.QueryRowContext(ctx, `SELECT MIN(not_before) FROM outbox`).Scan(&next); err != nil {
		return at, false, fmt.Errorf("outbox: %w", err)
	}
	if !next.Valid {
		return at, false, nil
	}
	return time.UnixMilli(next.Int64), true, nil
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

// DeleteOutbox deletes the outbox rows with the given ids (finished work),
// all or none: one transaction, whatever the number of statements (the
// drainer's batch of 512 takes two; as autocommit statements each took the
// write lock from the appends on its own).
func (s *Store) DeleteOutbox(ctx context.Context, ids []int64) error {
	if len(ids) <= store.ChunkSize {
		return deleteOutbox(ctx, s.conn, ids)
	}
	return s.Tx(ctx, func(tx *store.Tx) error { return deleteOutbox(ctx, s.in(tx), ids) })
}

func deleteOutbox(ctx context.Context, db execer, ids []int64) error {
	return store.InChunks(ids, func(in string, args []any) error {
		if _, err := db.ExecContext(ctx, `DELETE FROM outbox WHERE id IN `+in, args...); err != nil {
			return fmt.Errorf("clear outbox: %w", err)
		}
		return nil
	})
}

// Deferral reschedules one outbox row after a failure.
type Deferral struct {
	ID        int64
	Op        string    // the row's op from now on (an index row whose embedding failed becomes OpEmbed)
	NotBefore time.Time // when it is retried
}

// DeferOutbox applies ds in one transaction, counting one more attempt
// for each row. A delete row deferred as an index or embed row (its
// message stored again since its erasure: the engine removed the erased
// text and now indexes the live message) takes the resource of its
// message as stored now (NoResource when it is erased again), whose search
// status counts it from then on: it kept the erased message's resource,
// whose status counted one message too many while that of the live
// message's resource counted one too few.
func (s *Store) DeferOutbox(ctx context.Context, ds []Deferral) error {
	const deferSQL = `UPDATE outbox SET op = ?, attempts = attempts + 1, not_before = ? WHERE id = ?`
	const reindexSQL = `UPDATE outbox SET op = ?, attempts = attempts + 1, not_before = ?,
		resource_id = CASE WHEN op = '` + OpDelete + `'
			THEN COALESCE((SELECT m.resource_id FROM messages m WHERE m.id = outbox.message_id), '` + NoResource + `')
			ELSE resource_id END
		WHERE id = ?`
	return s.Tx(ctx, func(tx *store.Tx) error {
		for _, d := range ds {
			q := deferSQL
			if d.Op != OpDelete {
				q = reindexSQL
			}
			if _, err := s.in(tx).ExecContext(ctx, q, d.Op, d.NotBefore.UnixMilli(), d.ID); err != nil {
				return fmt.Errorf("defer outbox row: %w", err)
			}
		}
		return nil
	})
}

// ExpediteOutbox makes the rows other than embed rows (index and delete
// rows: their failure was the lexical index's) whose retry is due after
// now due at now, their attempts unchanged, and returns how many it
// changed: the engine's drainer calls it once a write succeeds after one
// refused for lack of room, and a writer's Open for the rows an earlier
// process deferred, so that the rows deferred on a full disk are not left
// waiting out their backoff (up to 5 minutes). It reads first and writes
// only when such a row is there: an Open with none takes no write lock.
func (s *Store) ExpediteOutbox(ctx context.Context, now time.Time) (int64, error) {
	var deferred bool
	if err := s.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM outbox WHERE op <> ? AND not_before > ?)`,
		OpEmbed, now.UnixMilli()).Scan(&deferred); err != nil {
		return 0, fmt.Errorf("expedite outbox: %w", err)
	}
	if !deferred {
		return 0, nil
	}
	res, err := s.conn.ExecContext(ctx, `UPDATE outbox SET not_before = ? WHERE op <> ? AND not_before > ?`,
		now.UnixMilli(), OpEmbed, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("expedite outbox: %w", err)
	}
	return res.RowsAffected()
}

// The statements of PendingIndex and Pending, one of which every search
// runs (PendingIndex's args: resource id, OpIndex; Pending's: resource id
// twice). Both read only outbox_by_resource (schema migration 12 on
// SQLite, 7 on Postgres: resource_id, op, message_id): the resource's
// index (and delete) rows, whatever other resources owe, and on SQLite no
// row of the table. Pending is two seeks of the index (UNION ALL), not one
// with op IN (…) (SQLite builds a table of the IN values: 2 µs more when
// nothing is pending) or op <> 'embed' (which reads every row the resource
// owes an embedding). Each delete row looks its message up by id: stored
// again in the resource since its erasure? A message found is read for
// its resource (with 1,000-10,000 such rows pending, 1.2-1.7x the time of
// the lookup by id alone, BenchmarkBacklogRestored); an erased one is
// not found. The lookup is in the statement rather than a second one
// over the erased ids, which took half as long again and a half more
// allocations with 10,000 removals pending (engine's
// BenchmarkBacklogErased, medians 19 ms and 29 ms), and nothing to look
// up when none is pending. No ORDER BY: the ids are only looked up
// (recall's heldBy, a search's exclusions), and ordering them by id would
// read every row.
const (
	pendingIndexSQL = `SELECT COUNT(*) FROM outbox WHERE resource_id = ? AND op = ?`
	pendingSQL      = `SELECT message_id, 0 FROM outbox WHERE resource_id = ? AND op = '` + OpIndex + `'
		UNION ALL SELECT message_id, CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.id = outbox.message_id AND m.resource_id = outbox.resource_id) THEN 2 ELSE 1 END
		FROM outbox WHERE resource_id = ? AND op = '` + OpDelete + `'`
)

// The kinds of row pendingSQL returns.
const (
	pendingIndex  = 0 // an index row
	pendingErased = 1 // a delete row of a message not stored in the resource (erased, or stored again in another)
	pendingStored = 2 // a delete row of a message stored again in the resource since its erasure
)

// PendingIndex counts the outbox rows of resourceID that owe indexing
// (OpIndex): messages neither index has seen yet, which the drainer
// indexes and embeds together. They are the pending work that could add
// a hit to a search of the resource; a row owing a deletion (OpDelete)
// cannot, nor can one owing only an embedding (OpEmbed: the vector
// channel counts its unembedded messages itself), so neither is counted.
func (s *Store) PendingIndex(ctx context.Context, resourceID string) (int64, error) {
	var n int64
	err := s.stmts.QueryRow(ctx, pendingIndexSQL, resourceID, OpIndex).Scan(&n)
	return n, err
}

// PendingWork is what the outbox still owes the indexes for one resource
// (Pending).
type PendingWork struct {
	// Unindexed lists the messages that owe indexing, in no particular
	// order (a message queued twice is listed twice), so that a search can
	// tell which of them its in-memory shard already holds
	// (recall.Backlog.UnindexedIDs): the ids of the rows PendingIndex
	// counts, plus the messages stored again in the resource after an
	// erasure whose removal is still queued (the drainer indexes them
	// again when it applies the removal, engine's applyOutbox), each of
	// those once. A message erased from the resource and stored again in
	// another is not listed: it is no longer the resource's, and its index
	// row is the other resource's. Nor is the index row of a message
	// erased before the drainer took it, which its erasure moved out of
	// the resource (EraseMessages, NoResource).
	Unindexed []string
	// Erased lists, once each, the messages whose removal from the
	// indexes is queued (OpDelete) under the resource: erased from it,
	// possibly still in its indexes. A message stored again with the same
	// id, in this resource or another, is listed too until the removal is
	// applied: the indexes may still hold its erased text under this
	// resource. A search leaves them out before topK (recall.Query.Exclude).
	Erased []string
}

// Pending returns the resource's pending index and delete rows
// (PendingWork) in one statement, which reads no row when nothing is
// pending; for each delete row it looks up (by id) whether a
// message of its id is stored again in the resource.
func (s *Store) Pending(ctx context.Context, resourceID string) (PendingWork, error) {
	var w PendingWork
	rows, err := s.stmts.Query(ctx, pendingSQL, resourceID, resourceID)
	if err != nil {
		return w, err
	}
	defer rows.Close()
	var deleted map[string]bool // erased id -> stored again in the resource
	var id string
	var kind int
	for rows.Next() {
		if err := rows.Scan(&id, &kind); err != nil {
			return w, err
		}
		switch {
		case kind == pendingIndex:
			w.Unindexed = append(w.Unindexed, id)
		case deleted == nil:
			deleted = map[string]bool{id: kind == pendingStored}
		default:
			deleted[id] = kind == pendingStored
		}
	}
	if err := rows.Err(); err != nil || deleted == nil {
		return w, err
	}
	listed := make(map[string]bool) // stored again, listed in Unindexed
	w.Unindexed = slices.DeleteFunc(w.Unindexed, func(id string) bool {
		if !deleted[id] {
			return false
		}
		dup := listed[id]
		listed[id] = true
		return dup
	})
	w.Erased = make([]string, 0, len(deleted))
	for id, stored := range deleted {
		w.Erased = append(w.Erased, id)
		if stored && !listed[id] {
			w.Unindexed = append(w.Unindexed, id)
		}
	}
	return w, nil
}

// PendingOutbox counts every outbox row.
func (s *Store) PendingOutbox(ctx context.Context) (int64, error) {
	var n int64
	err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&n)
	return n, err
}

// LeasedOutbox counts the rows a drainer holds at now: claimed
// (ClaimOutbox) and neither finished nor deferred yet, i.e. never failed
// (attempts 0) and not due before the lease ends.
func (s *Store) LeasedOutbox(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE attempts = 0 AND not_before > ?`, now.UnixMilli()).Scan(&n)
	return n, err
}

// OutboxLeaseEnd returns when the last lease held at now ends (the
// largest not_before of the rows LeasedOutbox counts), the zero time when
// none is held.
func (s *Store) OutboxLeaseEnd(ctx context.Context, now time.Time) (time.Time, error) {
	var ms int64
	err := s.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(not_before), 0) FROM outbox WHERE attempts = 0 AND not_before > ?`, now.UnixMilli()).Scan(&ms)
	if err != nil || ms == 0 {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// IndexBacklog returns how many messages are stored and how many index
// rows (OpIndex) are queued.
func (s *Store) IndexBacklog(ctx context.Context) (stored, pending int64, err error) {
	err = s.conn.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM outbox WHERE op = 'index')`).Scan(&stored, &pending)
	return stored, pending, err
}

// CountMessages counts the stored messages.
func (s *Store) CountMessages(ctx context.Context) (int64, error) {
	var n int64
	err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages`).Scan(&n)
	return n, err
}

// CountResourceMessages counts the messages stored in resourceID (one
// range of the messages_by_resource index). A search on an index that a
// rebuild has made empty, before its messages are queued, takes them all
// as not indexed yet (the engine's Reindex).
func (s *Store) CountResourceMessages(ctx context.Context, resourceID string) (int64, error) {
	var n int64
	err := s.stmts.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE resource_id = ?`, resourceID).Scan(&n)
	return n, err
}

// QueueAll queues every stored message for indexing (OpIndex rows created
// at now), in the order stored.
func (s *Store) QueueAll(ctx context.Context, now time.Time) error {
	_, err := s.conn.ExecContext(ctx, s.dialect.Text(`INSERT INTO outbox (op, message_id, resource_id, created_at)
		SELECT 'index', id, resource_id, ? FROM messages ORDER BY pk`, `INSERT INTO outbox (op, message_id, resource_id, created_at)
		SELECT 'index', id, resource_id, ?::bigint FROM messages ORDER BY pk`), now.UnixMilli())
	return err
}

// ReplaceIndexQueue replaces the outbox's index rows (OpIndex) by one per
// stored message (created at now, in the order stored), in one
// transaction, and returns how many it queued; delete and embed rows stay.
// It is for an index behind the store or rebuilt empty: a rebuild queued
// before (by a process that stopped before its drainer finished) is queued
// once, not again beside its remaining rows, and a pending deletion is
// still applied (removing a message also rewrites or deletes its
// resource's shard snapshot, which outlives the index directory).
func (s *Store) ReplaceIndexQueue(ctx context.Context, now time.Time) (int64, error) {
	var queued int64
	err := s.Tx(ctx, func(tx *store.Tx) error {
		if _, err := s.in(tx).ExecContext(ctx, `DELETE FROM outbox WHERE op = ?`, OpIndex); err != nil {
			return err
		}
		r, err := s.in(tx).ExecContext(ctx, s.dialect.Text(`INSERT INTO outbox (op, message_id, resource_id, created_at)
			SELECT ?, id, resource_id, ? FROM messages ORDER BY pk`, `INSERT INTO outbox (op, message_id, resource_id, created_at)
			SELECT ?::text, id, resource_id, ?::bigint FROM messages ORDER BY pk`), OpIndex, now.UnixMilli())
		if err != nil {
			return err
		}
		queued, err = r.RowsAffected()
		return err
	})
	return queued, err
}

// DeleteOutboxOp deletes every outbox row of op.
func (s *Store) DeleteOutboxOp(ctx context.Context, op string) error {
	_, err := s.conn.ExecContext(ctx, `DELETE FROM outbox WHERE op = ?`, op)
	return err
}

// ClearIndexQueue deletes every index and embed row of the outbox (a
// rebuild queues them again); delete rows stay.
func (s *Store) ClearIndexQueue(ctx context.Context) error {
	_, err := s.conn.ExecContext(ctx, `DELETE FROM outbox WHERE op IN ('index','embed')`)
	return err
}

// ReleaseOutbox ends the lease of claimed rows (ClaimOutbox) that their
// drainer gives back unfinished (it is shutting down): they are due at now
// for any drainer, with no attempt counted.
func (s *Store) ReleaseOutbox(ctx context.Context, ids []int64, now time.Time) error {
	return store.InChunks(ids, func(in string, args []any) error {
		args = append([]any{now.UnixMilli()}, args...)
		if _, err := s.conn.ExecContext(ctx, `UPDATE outbox SET not_before = ? WHERE id IN `+in, args...); err != nil {
			return fmt.Errorf("release outbox: %w", err)
		}
		return nil
	})
}

// ReleaseClaim ends the lease of the rows a claim stamped (ClaimOutbox's
// until): they are due at now for any drainer, with no attempt counted.
// A drainer whose claim failed on a lost connection does not know whether
// the server ran it, nor which rows it took; without the release, rows it
// did take waited for the lease's end (outboxLease, 2 minutes) and
// SyncIndexes with them. It returns how many rows it released. A row of
// another claim stamped the same millisecond is released too (claimers
// pick distinct stamps, see the engine's claimOutbox): it is due again
// early, and at worst embedded twice (StoreVectors keeps one vector).
func (s *Store) ReleaseClaim(ctx context.Context, until, now time.Time) (int64, error) {
	res, err := s.conn.ExecContext(ctx, `UPDATE outbox SET not_before = ? WHERE not_before = ?`, now.UnixMilli(), until.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("release claim: %w", err)
	}
	return res.RowsAffected()
}

// ClaimOutbox claims up to limit outbox rows due at now, oldest first, for
// one drainer: their not_before moves to until (a lease), so that another
// drainer, in this process or another, does not take them, and rows whose
// drainer died fall due again when the lease ends. The drainer then
// deletes the rows it finished (DeleteOutbox, StoreVectors) and defers the
// others (DeferOutbox), as with DueOutbox's rows.
//
// Concurrent claims get disjoint rows: on Postgres the rows are locked FOR
// UPDATE SKIP LOCKED (a claimer skips the rows another is claiming instead
// of waiting for them); on SQLite the write transaction serializes claims.
//
// The claim is a write transaction of its own (Tx), so the database's
// write check runs first: on Postgres, a schema a newer build migrated
// meanwhile is pgstore.ErrSchemaMigrated and nothing is leased. (As one
// UPDATE … RETURNING read through QueryContext, which no check wraps, it
// leased rows in a migrated schema.)
func (s *Store) ClaimOutbox(ctx context.Context, now, until time.Time, limit int) ([]OutboxRow, error) {
	q := s.dialect.Text(`UPDATE outbox SET not_before = ?
		WHERE id IN (SELECT id FROM outbox WHERE not_before <= ? ORDER BY id LIMIT ?)
		RETURNING id, op, message_id, resource_id, attempts`,
		`UPDATE outbox SET not_before = $1
		WHERE id IN (SELECT id FROM outbox WHERE not_before <= $2 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING id, op, message_id, resource_id, attempts`)
	var rows []OutboxRow
	err := s.Tx(ctx, func(tx *store.Tx) error {
		var err error
		rows, err = collectOutbox(tx.QueryContext(ctx, q, until.UnixMilli(), now.UnixMilli(), limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	slices.SortFunc(rows, func(a, b OutboxRow) int { return cmp.Compare(a.ID, b.ID) })
	return rows, nil
}
