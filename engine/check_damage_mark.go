package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file keeps the record of a damaged mnemo.db (mnemo.db.damage-seen,
// store.DamageMarked) in step with what a check found: a check that finds
// the file damaged records it, as a read that meets a damaged page does,
// so that the next process refuses new data from its Open; a full check
// that finds it sound removes the record, and an engine that opened with
// it stores new data again.

// noteCheckedFile records or clears the damage of the engine's mnemo.db
// after a check: found database findings (SQLite's integrity check, the
// digests; not a kept WAL's commits not applied: the file is sound, and
// Open goes on without them) record it; none, when the
// full checks ran (full) and no read of this engine met a damaged page,
// clear it. Nothing on Postgres.
func (e *Engine) noteCheckedFile(ctx context.Context, full bool, found int) error {
	if e.onPostgres() {
		return nil
	}
	path := filepath.Join(e.dir, DatabaseFile)
	if found > 0 {
		// This engine stores nothing new from now on either, recorded or not.
		if err := store.NoteDamage(e.db, path, e.now(), checkFound(found)); err != nil {
			e.log.WarnContext(ctx, "the damage check found was not recorded for the next process", "err", err)
		}
		return nil
	}
	if !full || store.DamageMarked(e.db) == nil {
		return nil
	}
	removed, err := store.ClearDamageMark(e.db)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if removed {
		e.log.InfoContext(ctx, "the record of damage was removed: the full check found the database file sound; new data is stored again", "path", path+store.DamageMarkSuffix)
	}
	return nil
}

// checkFound is what a record of damage a check found says: no finding's
// text (a finding names a thread).
func checkFound(n int) string {
	if n == 1 {
		return "mnemo check found 1 problem in the database file"
	}
	return fmt.Sprintf("mnemo check found %d problems in the database file", n)
}
