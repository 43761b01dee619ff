package msgstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// Prefix is the start of one stored message's text, as PrefixesByID reads
// it: enough for a one-line preview (the engine's Preview) without the
// rest, which may be 256 KiB a message.
type Prefix struct {
	ID       string
	ThreadID string
	Seq      int64
	// Content is the first characters (runes) of the content column, at
	// most contentChars, never cut inside a character.
	Content string
	// ContentCut reports that the stored content holds more characters
	// than Content.
	ContentCut bool
	// ToolCalls is the first characters of the tool_calls column (a JSON
	// array of {id, name, arguments}, as stored; "" when none), at most
	// callsChars: cut, it is not valid JSON.
	ToolCalls string
	// ToolCallsCut reports that the stored tool_calls holds more
	// characters than ToolCalls.
	ToolCallsCut bool
}

// PrefixesByID returns the first contentChars characters (runes, not
// bytes) of the content and the first callsChars of the tool_calls of the
// stored messages with the given ids, each once, in the order the
// database returns them; ids that are not stored are left out, and so are
// messages of other resources when resourceID is not empty (a read by id
// never crosses resources). Both counts must be at least 1.
//
// The database cuts the texts (substr, which counts characters of TEXT on
// SQLite, where content and tool calls are stored as TEXT, and of text in
// a UTF8 database on Postgres, which answers it from a slice of a TOASTed
// value), so no whole text is copied out of the database: 1,000 messages
// of 256 KiB read at most 1,000 × (contentChars+callsChars+2) characters.
// (SQLite, in process, still loads each value whole while it cuts it, one
// row at a time.) One character more than asked is read to tell a text of
// exactly that many from a longer one.
func (s *Store) PrefixesByID(ctx context.Context, resourceID string, ids []string, contentChars, callsChars int) ([]Prefix, error) {
	if contentChars < 1 || callsChars < 1 {
		return nil, fmt.Errorf("read message prefixes: %d characters of content, %d of tool calls: want at least 1 each", contentChars, callsChars)
	}
	// Literals, not parameters: one cached statement per pair of counts.
	content, calls := strconv.Itoa(contentChars+1), strconv.Itoa(callsChars+1)
	q, args, err := s.byIDSelect(`id, thread_id, seq, substr(content, 1, `+content+`), substr(tool_calls, 1, `+calls+`)`, resourceID, ids)
	var rows *sql.Rows
	if err == nil {
		rows, err = s.stmts.Query(ctx, q, args...)
	}
	var out []Prefix
	if err == nil {
		out, err = collectPrefixes(rows, len(ids), contentChars, callsChars)
	}
	if err != nil {
		return nil, fmt.Errorf("read message prefixes: %w", err)
	}
	return out, nil
}

// collectPrefixes scans and closes rows of PrefixesByID's columns, cutting
// each content to contentChars characters and tool calls to callsChars
// (nil when there are no rows).
func collectPrefixes(rows *sql.Rows, about, contentChars, callsChars int) ([]Prefix, error) {
	defer rows.Close()
	out := make([]Prefix, 0, min(max(about, 0), 1024))
	for rows.Next() {
		var p Prefix
		var calls sql.NullString
		if err := rows.Scan(&p.ID, &p.ThreadID, &p.Seq, &p.Content, &calls); err != nil {
			return nil, err
		}
		p.Content, p.ContentCut = cutRunes(p.Content, contentChars)
		p.ToolCalls, p.ToolCallsCut = cutRunes(calls.String, callsChars)
		out = append(out, p)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, rows.Err()
}

// cutRunes returns the first n runes of s and whether s held more. It
// never cuts inside a rune (an invalid byte counts as one rune, as
// utf8.DecodeRuneInString reads it).
func cutRunes(s string, n int) (string, bool) {
	for i := range s {
		if n == 0 {
			return s[:i], true
		}
		n--
	}
	return s, false
}
