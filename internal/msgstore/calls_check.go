package msgstore

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// CheckCalls compares message_calls, the calls each assistant message
// made (ToolCall and OpenCall find a result's call by it), with the
// stored messages. With full it recomputes every assistant message's
// calls from its tool calls, as the schema's triggers read them:
// store.Mismatch's Missing and Extra. Without, it counts only the calls
// of no stored assistant message (Extra, one index lookup a call): a
// call missing is found by full only.
func (s *Store) CheckCalls(ctx context.Context, full bool) (store.Mismatch, error) {
	if !full {
		var m store.Mismatch
		err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM message_calls c
			WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = c.thread_id AND m.seq = c.seq AND m.role = 'assistant')`).Scan(&m.Extra)
		if err != nil {
			return m, fmt.Errorf("check message_calls: %w", err)
		}
		return m, nil
	}
	m, err := store.CompareDerived(ctx, s.conn, s.dialect.Text(store.MessageCallsSelect, store.MessageCallsSelectPostgres),
		`SELECT thread_id, call_id, seq FROM message_calls`)
	if err != nil {
		return m, fmt.Errorf("check message_calls: %w", err)
	}
	return m, nil
}

// RebuildCalls writes message_calls again in tx from the stored messages
// (what CheckCalls with full compares it with). On Postgres it holds
// messages in SHARE mode until tx ends.
func RebuildCalls(ctx context.Context, tx *store.Tx) error {
	want := tx.Dialect.Text(store.MessageCallsSelect, store.MessageCallsSelectPostgres)
	return store.RebuildDerived(ctx, tx, "message_calls", "thread_id, call_id, seq", "messages", want)
}
