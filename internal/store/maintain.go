package store

import (
	"context"
	"database/sql"
)

// Checkpoint runs one truncating WAL checkpoint (PRAGMA
// wal_checkpoint(TRUNCATE)): it copies the WAL into the database file and
// truncates it. busy is non-zero when a reader holding an old snapshot
// blocked it; logFrames and done count the WAL's frames and those copied.
func Checkpoint(ctx context.Context, db *sql.DB) (busy, logFrames, done int, err error) {
	err = db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	return busy, logFrames, done, err
}

// Vacuum rewrites the database file (VACUUM), leaving no free page or
// free space in a page that could hold a deleted cell's bytes.
func Vacuum(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `VACUUM`)
	return err
}
