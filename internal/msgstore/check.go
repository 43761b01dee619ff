package msgstore

import (
	"context"
	"database/sql"
)

// This file holds the reads of the engine's Check that compare the
// message tables with themselves and with the erased seqs' tombstones.

// ThreadSeqs is one thread's counters beside what its stored messages and
// tombstones say.
type ThreadSeqs struct {
	ID           string
	LastSeq      int64 // threads.last_seq
	MessageCount int64 // threads.message_count
	Stored       int64 // messages stored
	MinSeq       int64 // their least seq (0 when none)
	MaxSeq       int64 // their greatest seq (0 when none)
	Erased       int64 // tombstones of erased seqs
	Lost         int64 // records of seqs a salvage lost
}

// ThreadSeqs calls fn for every thread's ThreadSeqs. Erased counts the
// thread's tombstones: the journal's records of scope erasedScope
// (journal.ScopeErased), and Lost its records of scope lostScope
// (journal.ScopeLost), read here so that one statement compares them
// with the thread's seqs.
func (s *Store) ThreadSeqs(ctx context.Context, erasedScope, lostScope string, fn func(ThreadSeqs)) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT t.id, t.last_seq, t.message_count, COUNT(m.id), COALESCE(MIN(m.seq), 0), COALESCE(MAX(m.seq), 0),
		(SELECT COUNT(*) FROM journal j WHERE j.scope = ? AND j.thread_id = t.id),
		(SELECT COUNT(*) FROM journal j WHERE j.scope = ? AND j.thread_id = t.id)
		FROM threads t LEFT JOIN messages m ON m.thread_id = t.id GROUP BY t.id`, erasedScope, lostScope)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var t ThreadSeqs
		if err := rows.Scan(&t.ID, &t.LastSeq, &t.MessageCount, &t.Stored, &t.MinSeq, &t.MaxSeq, &t.Erased, &t.Lost); err != nil {
			return err
		}
		fn(t)
	}
	return rows.Err()
}

// ThreadBytes is a thread whose bytes counter is not what its messages
// hold.
type ThreadBytes struct {
	ID         string
	Have, Want int64 // threads.bytes; ThreadBytesOf its messages
}

// WrongThreadBytes returns the threads whose bytes counter (what quotas
// read) is not the size of their stored messages (ThreadBytesOf).
func (s *Store) WrongThreadBytes(ctx context.Context) ([]ThreadBytes, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT id, bytes, `+s.threadBytesOf("t.id")+` FROM threads t WHERE bytes <> `+s.threadBytesOf("t.id"))
	if err != nil {
		return nil, err
	}
	return collectThreadBytes(rows)
}

func collectThreadBytes(rows *sql.Rows) ([]ThreadBytes, error) {
	defer rows.Close()
	var out []ThreadBytes
	for rows.Next() {
		var t ThreadBytes
		if err := rows.Scan(&t.ID, &t.Have, &t.Want); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
