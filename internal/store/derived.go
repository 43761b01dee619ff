package store

import (
	"context"
	"fmt"
)

// Mismatch counts the rows of a table the schema derives from another
// (journal_tool_obs from journal, message_calls from messages, kept by
// triggers) that disagree with what its source makes: a crash between a
// migration's steps, a hand edit or a copy that skipped the triggers
// leaves them so, and an erasure that finds rows by the derived table
// then misses some.
type Mismatch struct {
	// Missing counts the rows the source makes that the table lacks; 0
	// when only Extra was counted (CompareDerived's quick mode).
	Missing int64
	// Extra counts the rows the table holds that the source does not make.
	Extra int64
}

// CompareDerived counts on conn the rows of the query want (what the
// source makes) that the query got (the table's rows, the same columns)
// lacks, and the rows of got that want lacks (set difference: duplicates
// do not count). Both queries are read whole.
func CompareDerived(ctx context.Context, conn Conn, want, got string) (Mismatch, error) {
	var m Mismatch
	q := `SELECT (SELECT COUNT(*) FROM (` + want + ` EXCEPT ` + got + `) AS a), (SELECT COUNT(*) FROM (` + got + ` EXCEPT ` + want + `) AS b)`
	if err := conn.QueryRowContext(ctx, q).Scan(&m.Missing, &m.Extra); err != nil {
		return m, fmt.Errorf("compare: %w", err)
	}
	return m, nil
}

// RebuildDerived deletes every row of table in tx and writes the rows of
// the query want into columns (a comma-separated list), ignoring
// duplicates. On Postgres it first locks source in SHARE mode until tx
// ends, so no write to it (whose triggers change table) runs between the
// delete and the insert.
func RebuildDerived(ctx context.Context, tx *Tx, table, columns, source, want string) error {
	if tx.Dialect == Postgres {
		if _, err := tx.ExecContext(ctx, `LOCK TABLE `+source+` IN SHARE MODE`); err != nil {
			return fmt.Errorf("rebuild %s: lock %s: %w", table, source, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
		return fmt.Errorf("rebuild %s: %w", table, err)
	}
	q := tx.Dialect.Text(`INSERT OR IGNORE INTO `+table+` (`+columns+`) `+want,
		`INSERT INTO `+table+` (`+columns+`) `+want+` ON CONFLICT DO NOTHING`)
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("rebuild %s: %w", table, err)
	}
	return nil
}
