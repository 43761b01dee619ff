package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ErasedTables are the tables an erasure deletes rows from (directly, by
// cascade or through the lexical statistics' triggers): the ones Vacuum
// vacuums. Tables that hold no conversation text (schema_version,
// embedders, working_config, shared_bounds) are left alone.
var ErasedTables = []string{
	"threads", "messages", "message_blobs", "outbox", "embeddings",
	"lexical_docs", "lexical_stats", "lexical_df",
	"working_memory", "working_memory_history", "observations",
	"journal", "journal_tool_obs", "runs", "dispatches",
}

// VacuumedTable is what Vacuum did to one table: its size on disk, table,
// indexes and TOAST together (pg_total_relation_size), before and after
// (BytesAfter is -1 when that size could not be read: the table was
// vacuumed).
type VacuumedTable struct {
	Table       string
	BytesBefore int64
	BytesAfter  int64
}

// Vacuum runs VACUUM (ANALYZE) on each of ErasedTables in db's schema (the
// first of its search_path that holds them), or VACUUM (FULL, ANALYZE)
// when full, and returns each table's size before and after, in
// ErasedTables' order. Stopped by an error or ctx, it returns the tables
// vacuumed so far (each one whose VACUUM returned, its size after read
// even when ctx ended meanwhile) with the error.
//
// What it does to erased text: a plain VACUUM marks the space of dead rows
// (deleted by an erasure and no longer visible to any transaction) free
// for reuse, without zeroing it: the bytes stay in the table's pages until
// later rows overwrite them. VACUUM FULL writes each table anew, holding an
// ACCESS EXCLUSIVE lock on it meanwhile (appends and reads of every
// resource wait), and unlinks the old files without wiping them. Neither
// reaches the WAL, base backups or replicas, which keep the text until
// they are recycled. A dead row that a transaction still open may see is
// not removed: vacuum again once it ended.
//
// VACUUM cannot run inside a transaction, so db's connections must not be
// in one; each table is vacuumed separately, and ctx cancels between (and,
// through pgx, during) them.
func Vacuum(ctx context.Context, db *sql.DB, full bool) ([]VacuumedTable, error) {
	stmt := "VACUUM (ANALYZE) "
	if full {
		stmt = "VACUUM (FULL, ANALYZE) "
	}
	out := make([]VacuumedTable, 0, len(ErasedTables))
	for _, t := range ErasedTables {
		v := VacuumedTable{Table: t}
		var err error
		if v.BytesBefore, err = tableBytes(ctx, db, t); err != nil {
			return out, err
		}
		if _, err := db.ExecContext(ctx, stmt+t); err != nil {
			return out, fmt.Errorf("pgstore: vacuum %s: %w", t, err)
		}
		afterVacuum(t)
		// t is vacuumed: its size is read even when ctx ended meanwhile
		// (within sizeAfterTimeout), so the result lists it. Before, a
		// cancel that hit this query left a vacuumed table out.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sizeAfterTimeout)
		v.BytesAfter, err = tableBytes(actx, db, t)
		cancel()
		if err != nil {
			v.BytesAfter = -1
			return append(out, v), err
		}
		out = append(out, v)
	}
	return out, nil
}

// sizeAfterTimeout bounds the size query after a table's vacuum, which
// ignores the caller's cancel.
const sizeAfterTimeout = 10 * time.Second

// afterVacuum is called with each table once its vacuum returned (a test
// cancels the context there).
var afterVacuum = func(table string) {}

// tableBytes returns table's total size on disk (heap, indexes, TOAST).
func tableBytes(ctx context.Context, db *sql.DB, table string) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT pg_total_relation_size($1::regclass)`, table).Scan(&n); err != nil {
		return 0, fmt.Errorf("pgstore: size of %s: %w", table, err)
	}
	return n, nil
}
