package journal

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// CheckRecalledLinks compares journal_tool_obs, the observation ids each
// recorded tool result lists (ForgetToolResults finds results by them),
// with the tool results recorded in db. With full it recomputes every
// result's ids (as the schema's trigger reads them,
// tools.RecalledObservationIDs' rules), reading each tool result that
// holds the word "observations": store.Mismatch's Missing and Extra.
// Without, it counts only the links whose result is not recorded (Extra,
// one index lookup a link): a link missing is found by full only.
func CheckRecalledLinks(ctx context.Context, db *sql.DB, full bool) (store.Mismatch, error) {
	d := store.DialectOf(db)
	if !full {
		var m store.Mismatch
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM journal_tool_obs l
			WHERE NOT EXISTS (SELECT 1 FROM journal j WHERE j.scope = l.scope AND j.key = l.key)`).Scan(&m.Extra)
		if err != nil {
			return m, fmt.Errorf("journal: check journal_tool_obs: %w", err)
		}
		return m, nil
	}
	m, err := store.CompareDerived(ctx, db, d.Text(store.RecalledLinksSelect, store.RecalledLinksSelectPostgres),
		`SELECT obs_id, scope, key FROM journal_tool_obs`)
	if err != nil {
		return m, fmt.Errorf("journal: check journal_tool_obs: %w", err)
	}
	return m, nil
}

// RebuildRecalledLinks writes journal_tool_obs again in tx from the tool
// results recorded (what CheckRecalledLinks with full compares it with).
// On Postgres it holds journal in SHARE mode until tx ends.
func RebuildRecalledLinks(ctx context.Context, tx *store.Tx) error {
	want := tx.Dialect.Text(store.RecalledLinksSelect, store.RecalledLinksSelectPostgres)
	if err := store.RebuildDerived(ctx, tx, "journal_tool_obs", "obs_id, scope, key", "journal", want); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
