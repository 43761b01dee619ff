package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// The dispatch journal (table dispatches): one row per side-effecting tool
// call, written when the application begins the call and updated when it
// settles it (engine/dispatch.go: BeginDispatch, SettleDispatch,
// Unsettled). The journal owns it rather than a package of its own: like a
// tool application (ApplyTool) it records a side effect of a run, it is
// keyed by the run (whose owner, in runs, the journal keeps: a dispatch is
// begun under the run's claim, ClaimRunTx), and erasure scrubs it with the
// run's other records. Writes take the caller's transaction: a dispatch is
// stored in the same transaction as the message that makes or answers the
// call.

// Querier is what a read that runs either inside the caller's transaction
// or on the pool takes: a *sql.Tx or a *sql.DB (anything with
// ExecContext, QueryContext and QueryRowContext) on the engine's database.
// It is for mnemo's own packages: the engine hands out neither its
// database nor a transaction on it. Its method set is internal/store's
// Conn's, so either converts to the other.
type Querier interface {
	// ExecContext runs a statement that returns no rows (database/sql's).
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	// QueryContext runs a query that returns rows (database/sql's).
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	// QueryRowContext runs a query that returns at most one row
	// (database/sql's).
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Dispatch is one row of dispatches, with the seq and tool calls of the
// assistant message that makes the call.
type Dispatch struct {
	// RunID is the run that made the call.
	RunID string
	// CallID is the tool call's id; (RunID, CallID) is the row's key.
	CallID string
	// ThreadID is the thread of the call's assistant message.
	ThreadID string
	// ResourceID is ThreadID's resource.
	ResourceID string
	Name       string // the tool's name
	MessageID  string // the assistant message that makes the call
	// Seq and ToolCalls are the call message's seq and tool_calls column
	// (a JSON array, as stored); 0 and "" when it is not stored.
	Seq int64
	// ToolCalls is that message's tool_calls column, a JSON array.
	ToolCalls string
	// ResultID is the tool message holding the result, "" until settled;
	// Failed says the result was recorded as an error.
	ResultID string
	// Failed reports a result recorded as an error.
	Failed    bool
	BegunAt   time.Time // UTC
	SettledAt time.Time // UTC; zero until settled
	// Answered reports, for an unsettled dispatch RunDispatches lists, a
	// tool message after the call answering its call id (appended without
	// SettleDispatch): its outcome is known. Other reads leave it false.
	Answered bool
}

// The states of a dispatch, as Status words them: the dispatch
// journal's vocabulary (docs/working-memory.md, side-effecting tools),
// which every answer naming a dispatch's state uses — mnemo memctx and
// replay, the HTTP API's and MCP's 404 of a run with no record, the
// inspector's thread page (small64: the inspector said "pending ·
// outcome unknown" and "answered by a tool message").
const (
	// DispatchPending: begun, never settled, no tool message answers it.
	DispatchPending = "pending (its outcome is unknown)"
	// DispatchAnswered: a tool message appended without a settlement
	// answers its call (Answered).
	DispatchAnswered = "answered by a tool message appended without a settlement"
	// DispatchSettled: its result is recorded (ResultID).
	DispatchSettled = "settled"
	// DispatchSettledFailed: its result is recorded as an error (Failed).
	DispatchSettledFailed = "settled as failed"
)

// Status says the dispatch's state, without its time: DispatchPending,
// DispatchAnswered, DispatchSettled or DispatchSettledFailed.
func (d Dispatch) Status() string {
	switch {
	case d.ResultID != "" && d.Failed:
		return DispatchSettledFailed
	case d.ResultID != "":
		return DispatchSettled
	case d.Answered:
		return DispatchAnswered
	}
	return DispatchPending
}

// State says the dispatch's state for a message, Status with its time:
// "pending (its outcome is unknown; begun 2026-12-07 02:40:00 UTC)",
// "answered by a tool message appended without a settlement", "settled
// 2026-12-07 02:41:00 UTC" or "settled as failed 2026-12-07 02:41:00
// UTC".
func (d Dispatch) State() string {
	const at = "2006-01-02 15:04:05 UTC"
	switch st := d.Status(); st {
	case DispatchSettled, DispatchSettledFailed:
		return st + " " + d.SettledAt.UTC().Format(at)
	case DispatchPending:
		return strings.TrimSuffix(st, ")") + "; begun " + d.BegunAt.UTC().Format(at) + ")"
	default:
		return st
	}
}

// RunDispatches returns the first limit dispatches of runID, in byte
// order of call id, as ReadDispatch gives them, an unsettled one with
// Answered set when a tool message answers it; nil when it has none.
// Errors: the database's (ctx's when cancelled).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func RunDispatches(ctx context.Context, q Querier, runID string, limit int) ([]Dispatch, error) {
	q = store.Bound(q)
	rows, err := q.QueryContext(ctx, dispatchSelect+` WHERE d.run_id = ?`+byRun(q, ` ORDER BY d.call_id`)+` LIMIT ?`, runID, limit)
	if err != nil {
		return nil, fmt.Errorf("journal: list dispatches of run %s: %w", runID, err)
	}
	var out []Dispatch
	for rows.Next() {
		d, err := scanDispatch(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("journal: list dispatches of run %s: %w", runID, err)
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: list dispatches of run %s: %w", runID, err)
	}
	for i, d := range out {
		if d.ResultID != "" || d.Seq == 0 {
			continue
		}
		err := q.QueryRowContext(ctx, answeredAfterSQL, d.ThreadID, d.CallID, d.Seq).Scan(&out[i].Answered)
		if err != nil {
			return nil, fmt.Errorf("journal: list dispatches of run %s: %w", runID, err)
		}
	}
	return out, nil
}

// DispatchKey names a dispatch: a run and one of its call ids.
type DispatchKey struct {
	// RunID is the run that made the call.
	RunID string
	// CallID is the tool call's id.
	CallID string
}

// ClaimRunTx is ClaimRun inside tx, at the journal's clock: the run becomes
// threadID's of resourceID unless it is already another's (ErrRunOwned,
// naming neither).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func (j *Journal) ClaimRunTx(ctx context.Context, tx store.Conn, runID, threadID, resourceID string) error {
	tx = store.Bound(tx)
	if _, err := tx.ExecContext(ctx, `INSERT INTO runs (id, thread_id, resource_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, runID, threadID, resourceID, j.now().UnixMilli()); err != nil {
		return fmt.Errorf("journal: claim run %s: %w", runID, err)
	}
	var thread, resource string
	if err := tx.QueryRowContext(ctx, `SELECT thread_id, resource_id FROM runs WHERE id = ?`, runID).Scan(&thread, &resource); err != nil {
		return fmt.Errorf("journal: claim run %s: %w", runID, err)
	}
	if thread != threadID || resource != resourceID {
		return ownedErr(runID, thread, resource)
	}
	return nil
}

// RunOwner reads the thread and resource that claimed runID (through q, a
// transaction or the pool); an error matching ErrNotFound (`journal: run
// not found: "ID"`) when it is unclaimed. An
// erased thread's runs name its tombstone.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func RunOwner(ctx context.Context, q Querier, runID string) (threadID, resourceID string, err error) {
	q = store.Bound(q)
	err = q.QueryRowContext(ctx, `SELECT thread_id, resource_id FROM runs WHERE id = ?`, runID).Scan(&threadID, &resourceID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", &runNotFoundError{runID: runID}
	}
	if err != nil {
		return "", "", fmt.Errorf("journal: read run %s: %w", runID, err)
	}
	return threadID, resourceID, nil
}

// DispatchMessage reads, in tx, the message id the dispatch (runID,
// callID) was begun with; ok is false when it was never begun.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DispatchMessage(ctx context.Context, tx store.Conn, runID, callID string) (messageID string, ok bool, err error) {
	tx = store.Bound(tx)
	err = tx.QueryRowContext(ctx, `SELECT message_id FROM dispatches WHERE run_id = ? AND call_id = ?`, runID, callID).Scan(&messageID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("journal: read dispatch %q of run %s: %w", callID, runID, err)
	}
	return messageID, true, nil
}

// OtherDispatch reads, in tx, the dispatch of call callID of the message
// messageID of threadID that a run other than runID began (the earliest begun, should
// a database written before BeginDispatch refused a second one hold two):
// its RunID, ResultID ("" until settled) and Failed. ok is false when there
// is none (an erased dispatch is none).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func OtherDispatch(ctx context.Context, tx store.Conn, threadID, messageID, callID, runID string) (d Dispatch, ok bool, err error) {
	d = Dispatch{CallID: callID, ThreadID: threadID, MessageID: messageID}
	err = store.Bound(tx).QueryRowContext(ctx, `SELECT run_id, result_id, failed FROM dispatches
		WHERE thread_id = ? AND message_id = ? AND call_id = ? AND run_id <> ?`+byRun(tx, ` ORDER BY begun_at, run_id`)+` LIMIT 1`,
		threadID, messageID, callID, runID).
		Scan(&d.RunID, &d.ResultID, &d.Failed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return d, false, nil
	case err != nil:
		return d, false, fmt.Errorf("journal: read dispatches of call %q of message %s: %w", callID, messageID, err)
	}
	return d, true, nil
}

// BeginDispatch records, in tx, that the call d.CallID of run d.RunID is
// begun: its thread, resource, message id, tool name and BegunAt. A second
// record of one (run, call) is a constraint error.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.BeginDispatch is the library's way.
func BeginDispatch(ctx context.Context, tx store.Conn, d Dispatch) error {
	tx = store.Bound(tx)
	_, err := tx.ExecContext(ctx, `INSERT INTO dispatches (run_id, call_id, thread_id, resource_id, message_id, name, begun_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, d.RunID, d.CallID, d.ThreadID, d.ResourceID, d.MessageID, d.Name, d.BegunAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("journal: begin dispatch %q of run %s: %w", d.CallID, d.RunID, err)
	}
	return nil
}

// SettleDispatch records, in tx, the outcome of the dispatch (runID,
// callID): the tool message resultID holds it, failed says it is an error,
// at is when.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.SettleDispatch is the library's way.
func SettleDispatch(ctx context.Context, tx store.Conn, runID, callID, resultID string, failed bool, at time.Time) error {
	tx = store.Bound(tx)
	if _, err := tx.ExecContext(ctx, `UPDATE dispatches SET result_id = ?, failed = ?, settled_at = ? WHERE run_id = ? AND call_id = ?`,
		resultID, failed, at.UnixMilli(), runID, callID); err != nil {
		return fmt.Errorf("journal: settle dispatch %q of run %s: %w", callID, runID, err)
	}
	return nil
}

// ReadDispatch reads the dispatch (runID, callID) through q (a transaction
// or the pool), with its call message's seq and tool calls; an error
// matching ErrNotFound (`journal: dispatch not found: call "C" of run
// "R"`) when it was never begun (or was erased).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ReadDispatch(ctx context.Context, q Querier, runID, callID string) (Dispatch, error) {
	q = store.Bound(q)
	d, err := scanDispatch(q.QueryRowContext(ctx, dispatchSelect+` WHERE d.run_id = ? AND d.call_id = ?`, runID, callID))
	if errors.Is(err, sql.ErrNoRows) {
		return Dispatch{RunID: runID, CallID: callID}, &dispatchNotFoundError{runID: runID, callID: callID}
	}
	if err != nil {
		return Dispatch{RunID: runID, CallID: callID}, fmt.Errorf("journal: read dispatch %q of run %s: %w", callID, runID, err)
	}
	return d, nil
}

// The statements that look up the tool messages answering a dispatch's
// call id (the pairing rule) each seek messages_by_tool_call, the index of
// results by (thread_id, tool_call_id, seq) (internal/store's migration 19,
// internal/pgstore's 17). It is partial, over the rows with a non-empty
// tool_call_id, and a planner uses it only where the statement implies
// that: a term "tool_call_id = d.call_id" or "= ?" does not (the value is
// not known when planning: SQLite's plan, and Postgres's generic one), so
// each also states that tool_call_id is not empty, which changes no answer
// (a dispatch's call id is a stored call's, never empty). Without it
// SQLite read every message of the thread from the call on
// (PendingDispatches, AnsweredBy, DispatchAnswer) or every message stored
// (RunDispatches: SCAN messages), and Postgres the thread's messages from
// the call on (TestDispatchLookupsSeekByCall, BenchmarkDispatchLookups).
const (
	// answeredAfterSQL: is the call ?2 of thread ?1 made at seq ?3 answered?
	answeredAfterSQL = `SELECT EXISTS (SELECT 1 FROM messages WHERE thread_id = ? AND role = 'tool'
		AND tool_call_id = ? AND tool_call_id <> '' AND seq > ?)`
	// pendingDispatchesSQL: PendingDispatches' rows (thread ?1, up to seq
	// ?2), less their order.
	pendingDispatchesSQL = `SELECT d.run_id, d.call_id, m.seq FROM dispatches d JOIN messages m ON m.id = d.message_id
		WHERE d.thread_id = ? AND d.result_id = ''
		AND NOT EXISTS (SELECT 1 FROM messages r WHERE r.thread_id = d.thread_id AND r.role = 'tool'
			AND r.tool_call_id = d.call_id AND r.tool_call_id <> '' AND r.seq > m.seq AND r.seq <= ?)`
	// answeredBySQL: AnsweredBy's rows (thread ?1 and ?3, call ?2 and ?4,
	// result at seq ?5 and ?6), less their order.
	answeredBySQL = `SELECT d.run_id, m.seq FROM dispatches d JOIN messages m ON m.id = d.message_id
		WHERE d.thread_id = ? AND d.call_id = ? AND d.result_id = ''
		AND m.seq = (SELECT MAX(m2.seq) FROM dispatches d2 JOIN messages m2 ON m2.id = d2.message_id
			WHERE d2.thread_id = ? AND d2.call_id = ? AND m2.seq < ?)
		AND NOT EXISTS (SELECT 1 FROM messages r WHERE r.thread_id = d.thread_id AND r.role = 'tool'
			AND r.tool_call_id = d.call_id AND r.tool_call_id <> '' AND r.seq > m.seq AND r.seq < ?)`
	// dispatchAnswerSQL: DispatchAnswer's row (run ?1, call ?2).
	dispatchAnswerSQL = `SELECT r.id FROM dispatches d JOIN messages m ON m.id = d.message_id
		JOIN messages r ON r.thread_id = d.thread_id AND r.role = 'tool' AND r.tool_call_id = d.call_id AND r.tool_call_id <> ''
			AND r.seq > m.seq
		WHERE d.run_id = ? AND d.call_id = ? ORDER BY r.seq LIMIT 1`
)

// dispatchSelect reads dispatch rows (d) with their call message's seq
// and tool calls, which come from messages (the message store's table),
// read in the same statement; scanDispatch scans one of its rows.
const dispatchSelect = `SELECT d.run_id, d.call_id, d.thread_id, d.resource_id, d.name, d.message_id, COALESCE(m.seq, 0), m.tool_calls,
		d.result_id, d.failed, d.begun_at, d.settled_at
		FROM dispatches d LEFT JOIN messages m ON m.id = d.message_id`

// scanDispatch scans a row of dispatchSelect (times in UTC; SettledAt
// zero while unsettled).
func scanDispatch(row interface{ Scan(...any) error }) (Dispatch, error) {
	var d Dispatch
	var begun int64
	var settled sql.NullInt64
	var calls sql.NullString
	if err := row.Scan(&d.RunID, &d.CallID, &d.ThreadID, &d.ResourceID, &d.Name, &d.MessageID, &d.Seq, &calls,
		&d.ResultID, &d.Failed, &begun, &settled); err != nil {
		return d, err
	}
	d.ToolCalls = calls.String
	d.BegunAt = time.UnixMilli(begun).UTC()
	if settled.Valid {
		d.SettledAt = time.UnixMilli(settled.Int64).UTC()
	}
	return d, nil
}

// UnsettledDispatches lists the dispatches of threadID with no recorded
// result, oldest first (ties by run, then call id, in byte order); nil
// when there are none. Errors: the database's (ctx's when cancelled).
func (j *Journal) UnsettledDispatches(ctx context.Context, threadID string) ([]DispatchKey, error) {
	rows, err := j.conn.QueryContext(ctx, `SELECT run_id, call_id FROM dispatches WHERE thread_id = ? AND result_id = ''`+
		byRun(j.conn, ` ORDER BY begun_at, run_id, call_id`), threadID)
	if err != nil {
		return nil, fmt.Errorf("journal: list unsettled dispatches of thread %s: %w", threadID, err)
	}
	defer rows.Close()
	var keys []DispatchKey
	for rows.Next() {
		var k DispatchKey
		if err := rows.Scan(&k.RunID, &k.CallID); err != nil {
			return nil, fmt.Errorf("journal: list unsettled dispatches of thread %s: %w", threadID, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: list unsettled dispatches of thread %s: %w", threadID, err)
	}
	return keys, nil
}

// PendingDispatches lists, in tx, the dispatches of threadID whose outcome
// is unknown as of seq upTo: not settled, and no tool message for the call
// id after the call's seq and up to upTo (by the pairing rule it answers
// the dispatch: nothing may make the call id again while a dispatch of it
// is pending). Each has its RunID, CallID and Seq (the call message's), in
// seq order. Errors: the database's (ctx's when cancelled).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func (j *Journal) PendingDispatches(ctx context.Context, tx *store.Tx, threadID string, upTo int64) ([]Dispatch, error) {
	st, err := j.stmts.InTx(ctx, tx.Tx, pendingDispatchesSQL+byRun(tx, ` ORDER BY m.seq, d.run_id`))
	if err != nil {
		return nil, fmt.Errorf("journal: list pending dispatches of thread %s: %w", threadID, err)
	}
	rows, err := st.QueryContext(ctx, threadID, upTo)
	if err != nil {
		return nil, fmt.Errorf("journal: list pending dispatches of thread %s: %w", threadID, err)
	}
	defer rows.Close()
	var out []Dispatch
	for rows.Next() {
		d := Dispatch{ThreadID: threadID}
		if err := rows.Scan(&d.RunID, &d.CallID, &d.Seq); err != nil {
			return nil, fmt.Errorf("journal: list pending dispatches of thread %s: %w", threadID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: list pending dispatches of thread %s: %w", threadID, err)
	}
	return out, nil
}

// DispatchPending reports whether call callID of the assistant message
// messageID was dispatched and has no recorded result. Errors: the
// database's (ctx's when cancelled).
func (j *Journal) DispatchPending(ctx context.Context, messageID, callID string) (bool, error) {
	var n int
	err := j.stmts.QueryRow(ctx, `SELECT COUNT(*) FROM dispatches WHERE message_id = ? AND call_id = ? AND result_id = ''`,
		messageID, callID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("journal: read dispatch %q of message %s: %w", callID, messageID, err)
	}
	return n > 0, nil
}

// AnsweredBy lists, in tx, the dispatches of threadID that a tool message
// for callID at seq resultSeq answers although none was settled by it
// (appended with Append, not SettleDispatch): those begun on the nearest
// dispatched call with that id before resultSeq, not settled, with no tool
// message for the id between their call and resultSeq. Each has RunID,
// CallID and Seq (the call message's), by run id. The caller checks that
// no call with the id that was not dispatched lies in between: only then
// is the message their answer.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func AnsweredBy(ctx context.Context, tx store.Conn, threadID, callID string, resultSeq int64) ([]Dispatch, error) {
	tx = store.Bound(tx)
	rows, err := tx.QueryContext(ctx, answeredBySQL+byRun(tx, ` ORDER BY d.run_id`), threadID, callID, threadID, callID, resultSeq, resultSeq)
	if err != nil {
		return nil, fmt.Errorf("journal: read dispatches answered in thread %s: %w", threadID, err)
	}
	defer rows.Close()
	var out []Dispatch
	for rows.Next() {
		d := Dispatch{ThreadID: threadID, CallID: callID}
		if err := rows.Scan(&d.RunID, &d.Seq); err != nil {
			return nil, fmt.Errorf("journal: read dispatches answered in thread %s: %w", threadID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: read dispatches answered in thread %s: %w", threadID, err)
	}
	return out, nil
}

// DispatchAnswer reads, in tx, the first tool message for the call of the
// dispatch (runID, callID) after its call message: the call's answer when
// no later message makes the call again (the pairing rule). ok is false
// when there is none.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DispatchAnswer(ctx context.Context, tx store.Conn, runID, callID string) (messageID string, ok bool, err error) {
	tx = store.Bound(tx)
	err = tx.QueryRowContext(ctx, dispatchAnswerSQL, runID, callID).Scan(&messageID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("journal: read the answer of dispatch %q of run %s: %w", callID, runID, err)
	}
	return messageID, true, nil
}

// DeleteDispatch deletes, in tx, the dispatch (runID, callID), leaving its
// tombstone (ScopeDispatchErased) at now; deleting one
// that is not stored is no error.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteDispatch(ctx context.Context, tx store.Conn, runID, callID string, now time.Time) error {
	tx = store.Bound(tx)
	if err := tombstoneDispatches(ctx, tx, now, `run_id = ? AND call_id = ?`, runID, callID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM dispatches WHERE run_id = ? AND call_id = ?`, runID, callID); err != nil {
		return fmt.Errorf("journal: erase: dispatch %q of run %s: %w", callID, runID, err)
	}
	return nil
}

// DeleteDispatches deletes, in tx, the dispatches of erased messages (any
// number of ids): a dispatch goes with its call's or its result's message,
// leaving its tombstone (ScopeDispatchErased) at now. The caller passes
// the messages of threads it keeps: a deleted thread's dispatches go with
// it (DeleteThreadDispatches), untombstoned.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteDispatches(ctx context.Context, tx store.Conn, messageIDs []string, now time.Time) error {
	tx = store.Bound(tx)
	return store.InChunks(messageIDs, func(in string, chunk []any) error {
		where := `message_id IN ` + in + ` OR result_id IN ` + in
		args := append(chunk, chunk...)
		if err := tombstoneDispatches(ctx, tx, now, where, args...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatches WHERE `+where, args...); err != nil {
			return fmt.Errorf("journal: erase: dispatches: %w", err)
		}
		return nil
	})
}

// DeleteThreadDispatches deletes, in tx, the dispatches of a deleted
// thread.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteThreadDispatches(ctx context.Context, tx store.Conn, threadID string) error {
	tx = store.Bound(tx)
	if _, err := tx.ExecContext(ctx, `DELETE FROM dispatches WHERE thread_id = ?`, threadID); err != nil {
		return fmt.Errorf("journal: erase: dispatches of thread %s: %w", threadID, err)
	}
	return nil
}

// byRun returns order, an ORDER BY of dispatch columns, for c's dialect:
// on Postgres its run_id and call_id compare bytewise (COLLATE "C"), as
// SQLite's do, whatever the columns' collation, so which dispatch a tie
// puts first (the one OtherDispatch reports, the order Unsettled lists)
// does not depend on the database's locale.
func byRun(c store.Conn, order string) string {
	if store.DialectOfConn(c) != store.Postgres {
		return order
	}
	return strings.NewReplacer("run_id", `run_id COLLATE "C"`, "call_id", `call_id COLLATE "C"`).Replace(order)
}
