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

// CheckpointPassive runs one passive WAL checkpoint (PRAGMA
// wal_checkpoint(PASSIVE)): it copies what it can of the WAL into the
// database file without waiting for, or blocking, readers and writers. On
// a database found damaged (Damaged) it does nothing: the WAL stays as it
// is for salvage (damage.go).
func CheckpointPassive(ctx context.Context, db *sql.DB) error {
	if Damaged(db) {
		return nil
	}
	var busy, logFrames, done int
	return db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done)
}

// Reindex rebuilds every index of the database (REINDEX): each index
// b-tree is built again from its table and its old pages are freed, which
// secure_delete zeroes. A page split copies cells within an index page and
// leaves the old bytes in the gap between its cell pointers and its cells;
// secure_delete zeroes a deleted cell where it lives but not those copies,
// so after an erasure pieces of an erased key (a resource or thread id)
// can survive there until the index is rebuilt. It takes the write lock
// for its duration: about the time to sort every index's keys.
func Reindex(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `REINDEX`)
	return err
}

// Vacuum rewrites the database file (VACUUM), leaving no free page or
// free space in a page that could hold a deleted cell's bytes.
func Vacuum(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `VACUUM`)
	return err
}
