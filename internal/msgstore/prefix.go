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
	// most the number asked, never cut inside a character.
	Content string
	// ContentCut reports that the stored content holds more characters
	// than Content.
	ContentCut bool
	// ToolCalls is the first characters of the tool_calls column (a JSON
	// array of {id, name, arguments}, as stored; "" when none), at most
	// the number asked: cut, it is not valid JSON.
	ToolCalls string
	// ToolCallsCut reports that the stored tool_calls holds more
	// characters than ToolCalls.
	ToolCallsCut bool
}

// PrefixesByID returns the first chars characters (runes, not bytes) of
// the content and tool_calls of the stored messages with the given ids,
// each once, in the order the database returns them; ids that are not
// stored are left out, and so are messages of other resources when
// resourceID is not empty (a read by id never crosses resources). chars
// must be at least 1.
//
// The database cuts the texts (substr, which counts characters on SQLite
// and on Postgres, and which Postgres answers from a slice of a TOASTed
// value), so a message's whole text never reaches the process: 1,000
// messages of 256 KiB read at most 1,000 × 2 × (chars+1) characters. One
// character more than asked is read to tell a text of exactly chars from
// a longer one.
func (s *Store) PrefixesByID(ctx context.Context, resourceID string, ids []string, chars int) ([]Prefix, error) {
	if chars < 1 {
		return nil, fmt.Errorf("read message prefixes: %d characters: want at least 1", chars)
	}
	n := strconv.Itoa(chars + 1) // a literal: one cached statement per chars
	q, args, err := s.byIDSelect(`id, thread_id, seq, substr(content, 1, `+n+`), substr(tool_calls, 1, `+n+`)`, resourceID, ids)
	var rows *sql.Rows
	if err == nil {
		rows, err = s.stmts.Query(ctx, q, args...)
	}
	var out []Prefix
	if err == nil {
		out, err = collectPrefixes(rows, len(ids), chars)
	}
	if err != nil {
		return nil, fmt.Errorf("read message prefixes: %w", err)
	}
	return out, nil
}

// collectPrefixes scans and closes rows of PrefixesByID's columns, cutting
// each text to chars characters (nil when there are no rows).
func collectPrefixes(rows *sql.Rows, about, chars int) ([]Prefix, error) {
	defer rows.Close()
	out := make([]Prefix, 0, min(max(about, 0), 1024))
	for rows.Next() {
		var p Prefix
		var calls sql.NullString
		if err := rows.Scan(&p.ID, &p.ThreadID, &p.Seq, &p.Content, &calls); err != nil {
			return nil, err
		}
		p.Content, p.ContentCut = cutRunes(p.Content, chars)
		p.ToolCalls, p.ToolCallsCut = cutRunes(calls.String, chars)
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
