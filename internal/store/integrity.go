package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// IntegrityCheck runs SQLite's "PRAGMA quick_check(limit)" (or
// "integrity_check(limit)" when full) on db and returns its findings, at most
// limit of them; nil when it answers "ok". An error that keeps the check
// from running at all (a file that is no database any more) is a finding
// too, prefixed with the pragma's name; only ctx's end and a row that does
// not scan are returned as errors.
func IntegrityCheck(ctx context.Context, db *sql.DB, full bool, limit int) ([]string, error) {
	pragma := "quick_check"
	if full {
		pragma = "integrity_check"
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA %s(%d)", pragma, limit))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []string{pragma + " failed: " + err.Error()}, nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		for _, l := range strings.Split(line, "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "ok" && l != "*** in database main ***" {
				out = append(out, l)
			}
		}
	}
	if err := rows.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, pragma+" failed: "+err.Error())
	}
	return out, nil
}
