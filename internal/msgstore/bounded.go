package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrTooLarge is returned by the readers given a byte bound
// (MessagesByIDWithin, RecentWithin, MessagesWithin) when the rows they read pass it: they
// stop at the row that passes it, so a reader never holds more than the
// bound and one row (a row is bounded by the engine's Limits).
var ErrTooLarge = errors.New("msgstore: rows exceed the byte bound")

// Size is the bytes of m that an answer carries as text: its content, name,
// tool calls (as stored JSON), tool-call id and metadata (as stored JSON;
// none for "{}", the metadata of a message without any, which an answer
// leaves out: counted, 100 bytes of content failed a bound of 100). Ids,
// roles and times are a few dozen bytes a row and not counted.
func (m Message) Size() int {
	meta := len(m.Metadata)
	if m.Metadata == "{}" {
		meta = 0
	}
	return len(m.Content) + len(m.Name) + len(m.ToolCalls) + len(m.ToolCallID) + meta
}

// MessagesByIDWithin is MessagesByIDUnordered reading at most maxBytes of
// rows (Size): once the rows read pass it, it stops reading and returns
// ErrTooLarge (the rows read are dropped). maxBytes <= 0 means no bound.
func (s *Store) MessagesByIDWithin(ctx context.Context, resourceID string, ids []string, maxBytes int) ([]Message, error) {
	q, args, err := s.byIDQuery(resourceID, ids)
	if err != nil {
		return nil, fmt.Errorf("read messages by id: %w", err)
	}
	rows, err := s.stmts.Query(ctx, q, args...)
	var ms []Message
	if err == nil {
		ms, err = collectWithin(rows, len(ids), maxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("read messages by id: %w", err)
	}
	return ms, nil
}

// RecentWithin is Recent reading at most maxBytes of rows (Size), newest
// first: once they pass it, ErrTooLarge. maxBytes <= 0 means no bound.
func (s *Store) RecentWithin(ctx context.Context, threadID string, n, maxBytes int) ([]Message, error) {
	rows, err := s.stmts.Query(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? ORDER BY seq DESC LIMIT ?`, threadID, n)
	var ms []Message
	if err == nil {
		ms, err = collectWithin(rows, n, maxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("read recent messages of %s: %w", threadID, err)
	}
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	return ms, nil
}

// MessagesWithin is Messages (the thread's messages with fromSeq <= seq
// <= toSeq, in seq order) reading at most maxBytes of rows (Size): once
// they pass it, ErrTooLarge. maxBytes <= 0 means no bound.
func (s *Store) MessagesWithin(ctx context.Context, threadID string, fromSeq, toSeq int64, maxBytes int) ([]Message, error) {
	rows, err := s.stmts.Query(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`, threadID, fromSeq, toSeq)
	var ms []Message
	if err == nil {
		ms, err = collectWithin(rows, int(min(max(toSeq-fromSeq+1, 0), 1024)), maxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("read messages of %s: %w", threadID, err)
	}
	return ms, nil
}

// collectWithin is collectMessages stopping with ErrTooLarge once the rows
// scanned pass maxBytes (Size); maxBytes <= 0 means no bound.
func collectWithin(rows *sql.Rows, about, maxBytes int) ([]Message, error) {
	ms, cut, err := collectBounded(rows, about, maxBytes, false)
	if cut {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxBytes)
	}
	return ms, err
}

// MessagesPageWithin is MessagesPage ending the page early once its rows
// pass maxBytes (Size), with at least one row: cut reports that it did
// (the row that passed, and any after it, are left for the next page).
// maxBytes <= 0 means no bound.
func (s *Store) MessagesPageWithin(ctx context.Context, threadID string, fromSeq, toSeq int64, limit int, newest bool, maxBytes int) (ms []Message, cut bool, err error) {
	return s.messagesPage(ctx, threadID, fromSeq, toSeq, limit, newest, maxBytes, true)
}

// MessagesPageUpTo is MessagesPageWithin whose page never passes
// maxBytes, not even with its first row: a first row larger than maxBytes
// ends it empty (cut). maxBytes <= 0 means no bound.
func (s *Store) MessagesPageUpTo(ctx context.Context, threadID string, fromSeq, toSeq int64, limit int, newest bool, maxBytes int) (ms []Message, cut bool, err error) {
	return s.messagesPage(ctx, threadID, fromSeq, toSeq, limit, newest, maxBytes, false)
}

// messagesPage is MessagesPageWithin (keepFirst) and MessagesPageUpTo.
func (s *Store) messagesPage(ctx context.Context, threadID string, fromSeq, toSeq int64, limit int, newest bool, maxBytes int, keepFirst bool) (ms []Message, cut bool, err error) {
	order := "seq"
	if newest {
		order = "seq DESC"
	}
	// Through the statement cache: the observer reads a long thread in
	// many pages (observe.PageSource), and preparing each page's query
	// again was a quarter of its read on SQLite.
	rows, err := s.stmts.Query(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? AND seq BETWEEN ? AND ? ORDER BY `+order+` LIMIT ?`,
		threadID, fromSeq, toSeq, limit)
	if err == nil {
		ms, cut, err = collectBounded(rows, limit, maxBytes, keepFirst)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read messages of %s: %w", threadID, err)
	}
	return ms, cut, nil
}

// collectBounded is collectMessages stopping at the row that takes the
// rows past maxBytes (Size): cut reports that it stopped, with the rows
// before that one (the first row is kept whatever its size when keepFirst
// is set). maxBytes <= 0 means no bound.
func collectBounded(rows *sql.Rows, about, maxBytes int, keepFirst bool) (ms []Message, cut bool, err error) {
	if maxBytes <= 0 {
		ms, err := collectMessages(rows, about)
		return ms, false, err
	}
	defer rows.Close()
	r := rowScans.Get().(*rowScan)
	defer r.release()
	out := make([]Message, 0, min(max(about, 0), 1024))
	total := 0
	for rows.Next() {
		m, err := r.scan(rows)
		if err != nil {
			return nil, false, err
		}
		if total += m.Size(); total > maxBytes && (len(out) > 0 || !keepFirst) {
			return out, true, nil
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, false, rows.Err()
}
