package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ToolResult returns the result of the call callID made at seq callSeq in
// the thread, by the pairing rule (engine/doc.go, INV-PAIR): the first tool
// message answering callID after callSeq, unless another assistant message
// making a call with the same id lies in between (then that call takes the
// result). ok is false when there is none.
func (s *Store) ToolResult(ctx context.Context, thread, callID string, callSeq int64) (m Message, ok bool, err error) {
	m, err = scanMessage(s.stmts.QueryRow(ctx, s.firstResultSQL(messageColumns), thread, callID, callSeq))
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("find result of tool call %s: %w", callID, err)
	}
	// Another call with the same id in between takes the result: a seek
	// of message_calls (see answeredSQL).
	var between bool
	if err := s.stmts.QueryRow(ctx, s.dialect.Text(`SELECT EXISTS (SELECT 1 FROM message_calls
		WHERE thread_id = ? AND call_id = ? AND seq > ? AND seq < ?)`,
		`SELECT EXISTS (SELECT 1 FROM message_calls
		WHERE thread_id = $1 AND call_id = $2 AND seq > $3 AND seq < $4)`),
		thread, callID, callSeq, m.Seq).Scan(&between); err != nil {
		return m, false, fmt.Errorf("find result of tool call %s: %w", callID, err)
	}
	return m, !between, nil
}

// FirstResult reads, in tx, the id and seq of the first tool message
// answering callID after seq afterSeq in the thread; ok is false when there
// is none. It is the result of the call made at afterSeq when no assistant
// message in between makes the call again (ToolResult checks it; a caller
// that knows none does, CountCalls, needs only this).
func (s *Store) FirstResult(ctx context.Context, tx *store.Tx, thread, callID string, afterSeq int64) (id string, seq int64, ok bool, err error) {
	err = s.in(tx).QueryRowContext(ctx, s.firstResultSQL("id, seq"), thread, callID, afterSeq).Scan(&id, &seq)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", 0, false, nil
	case err != nil:
		return "", 0, false, fmt.Errorf("find result of tool call %s: %w", callID, err)
	}
	return id, seq, true, nil
}

// ToolCall returns the assistant message whose call the result for callID
// at seq resultSeq answers, by the pairing rule: the latest assistant message
// before it that made the call, unless another result for callID lies in
// between. ok is false when there is none. Two index seeks (answeredSQL),
// whatever the thread's length.
func (s *Store) ToolCall(ctx context.Context, thread, callID string, resultSeq int64) (m Message, ok bool, err error) {
	m, err = scanMessage(s.stmts.QueryRow(ctx, s.answeredSQL(messageColumns, false), thread, callID, resultSeq))
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("find tool call %s: %w", callID, err)
	}
	return m, true, nil
}

// OpenCall reads, in tx, the seq of the thread's assistant message in
// [sinceSeq, beforeSeq) whose call callID no tool message answers yet: a
// result for callID stored at beforeSeq would answer it (the pairing rule,
// as ToolCall). ok is false when every call callID in that range is
// answered, or none was made. Two index seeks, as ToolCall.
func (s *Store) OpenCall(ctx context.Context, tx *store.Tx, thread, callID string, sinceSeq, beforeSeq int64) (seq int64, ok bool, err error) {
	err = s.in(tx).QueryRowContext(ctx, s.answeredSQL("seq", true), thread, callID, beforeSeq, sinceSeq).Scan(&seq)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("find open tool call %s: %w", callID, err)
	}
	return seq, true, nil
}

// LastResult reads, in tx, the seq of the thread's last tool message
// answering callID before seq beforeSeq; ok is false when there is none.
// It seeks the index of results by call id (lastResultSQL), not the
// thread: a call before that seq is answered, by the pairing rule. An
// empty callID answers none on both backends (no tool message the engine
// stores has one); the statement requires a non-empty tool_call_id on
// Postgres too, so that a generic plan of it (a prepared statement's,
// where callID is a parameter) still matches the partial index
// messages_by_tool_call. ToolResult's, FirstResult's and answeredSQL's
// statements have the term for the same reason.
func (s *Store) LastResult(ctx context.Context, tx *store.Tx, thread, callID string, beforeSeq int64) (seq int64, ok bool, err error) {
	var last sql.NullInt64
	if err := s.in(tx).QueryRowContext(ctx, s.lastResultSQL(), thread, callID, beforeSeq).Scan(&last); err != nil {
		return 0, false, fmt.Errorf("find last result of tool call %s: %w", callID, err)
	}
	return last.Int64, last.Valid, nil
}

// firstResultSQL selects columns of the thread's (?1) first tool message
// answering call ?2 after seq ?3; lastResultSQL the seq of the last one
// before seq ?3 (MAX: NULL when there is none). Each is one seek of
// messages_by_tool_call, whose key (thread_id, tool_call_id, seq) orders a
// call id's results by seq (internal/store's migration 19, internal/pgstore's
// 17): keyed without seq, it read every result for the id, each from the
// table, so a call id an agent reuses each turn (call_0) cost a read of
// its whole history at each lookup (BenchmarkAppendReusedCall).
func (s *Store) firstResultSQL(columns string) string {
	return s.dialect.Text(`SELECT `+columns+` FROM messages `+byCallSQLite+`
		WHERE thread_id = ? AND tool_call_id = ? AND tool_call_id <> '' AND role = 'tool' AND seq > ? ORDER BY seq LIMIT 1`,
		`SELECT `+columns+` FROM messages
		WHERE thread_id = ? AND tool_call_id = ? AND tool_call_id <> '' AND role = 'tool' AND seq > ? ORDER BY seq LIMIT 1`)
}

// lastResultSQL: see firstResultSQL.
func (s *Store) lastResultSQL() string {
	return s.dialect.Text(`SELECT MAX(seq) FROM messages `+byCallSQLite+`
		WHERE thread_id = ? AND tool_call_id = ? AND tool_call_id <> '' AND role = 'tool' AND seq < ?`,
		`SELECT MAX(seq) FROM messages
		WHERE thread_id = ? AND tool_call_id = ? AND tool_call_id <> '' AND role = 'tool' AND seq < ?`)
}

// answeredSQL selects columns of the assistant message whose call $2 a
// result for $2 at seq $3 of thread $1 answers: the latest one before $3
// making the call with no result for it in between; since adds the bound
// seq >= $4. Two seeks: the last result for $2 before $3
// (messages_by_tool_call, as lastResultSQL), and the last call $2 after it in message_calls
// (the triggers of internal/store's migration 17, internal/pgstore's 15),
// whose key is (thread_id, call_id, seq).
func (s *Store) answeredSQL(columns string, since bool) string {
	lite, pg := "", ""
	if since {
		lite, pg = " AND c.seq >= ?4", " AND c.seq >= $4"
	}
	return s.dialect.Text(`SELECT `+columns+` FROM messages
		WHERE thread_id = ?1 AND seq = (SELECT MAX(c.seq) FROM message_calls c
			WHERE c.thread_id = ?1 AND c.call_id = ?2 AND c.seq < ?3`+lite+`
			AND c.seq > COALESCE((SELECT MAX(seq) FROM messages `+byCallSQLite+`
				WHERE thread_id = ?1 AND tool_call_id = ?2 AND tool_call_id <> '' AND role = 'tool' AND seq < ?3), 0))
		AND role = 'assistant'`,
		`SELECT `+columns+` FROM messages
		WHERE thread_id = $1 AND seq = (SELECT MAX(c.seq) FROM message_calls c
			WHERE c.thread_id = $1 AND c.call_id = $2 AND c.seq < $3`+pg+`
			AND c.seq > COALESCE((SELECT MAX(seq) FROM messages WHERE thread_id = $1 AND tool_call_id = $2 AND tool_call_id <> '' AND role = 'tool' AND seq < $3), 0))
		AND role = 'assistant'`)
}

// byCallSQLite has SQLite find a thread's tool results for one call id
// through the partial index messages_by_tool_call (thread_id, tool_call_id,
// seq) (issue 14; seq since migration 18). Without statistics its planner took the unique (thread_id,
// seq) index instead and read every row of the thread on the seq side of
// the bound, content and all, to test its role and call id: a thread of
// ~100 messages at 100k/1 against ~10 at 10k/10. The index holds the rows
// whose tool_call_id is not empty, hence that term in the statements: a
// tool message's call id never is (the engine refuses one without), so it
// changes no answer. A call and its result looked up (ToolCall, then
// ToolResult) for 1,000 random tool messages of a 100k/1 file: 74–81 µs a
// pair with the old plan, 45–61 µs with this one (BENCHMARKS.md).
const byCallSQLite = `INDEXED BY messages_by_tool_call`
