package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// The swap of a salvaged database cannot be one atomic step: mnemo.db and
// its -wal are two files, and SQLite must never open the salvaged file
// beside the damaged one's WAL (it would apply the old frames to the new
// file). So the swap is recorded first: swapMarker names where the damaged
// files go, and while it exists Open refuses the directory
// (ErrSalvageInterrupted) and Salvage finishes the swap (resumeSwap). At
// every instant the damaged original is whole under mnemo.db (with its
// WAL) or under its kept name, and mnemo.db is the original or the
// complete salvaged file.

// swapMarker is the file, in the data directory, that records a swap in
// progress; it holds the base name the damaged files are kept under.
const swapMarker = DatabaseFile + ".salvage-swap"

// salvageSwapHook, when set (tests), runs before the swap's steps "wal"
// (moving the damaged -wal/-shm aside), "main" (renaming the salvaged file
// over mnemo.db) and "marker" (removing swapMarker), and after the swap
// before the indexes are rebuilt ("rebuild"); an error stops the salvage
// there, as a crash would.
var salvageSwapHook func(step string) error

func swapStep(step string) error {
	if salvageSwapHook == nil {
		return nil
	}
	return salvageSwapHook(step)
}

// swapDatabase puts the complete salvaged database salvaged in the place
// of dir's mnemo.db and returns where the damaged one is kept, and where
// the indexes derived from it are ("" when there were none): the damaged
// file is linked under its kept name, the swap recorded (swapMarker), its
// -shm and -wal renamed to their kept names, the salvaged file renamed
// over mnemo.db (atomic), the derived indexes moved beside the kept file
// (keepIndexes) and the record removed.
func swapDatabase(dir, salvaged string, at time.Time) (kept, keptIndex string, err error) {
	if _, err := os.Stat(salvaged + "-wal"); err == nil {
		return "", "", fmt.Errorf("engine: salvage: %s-wal left behind: the salvaged database was not closed cleanly", salvaged)
	}
	kept, err = swapFiles(dir, salvaged, at)
	if err != nil {
		return "", "", err
	}
	// The indexes were derived from the damaged file: they hold the lost
	// messages. Moved aside while the swap is still recorded, the next
	// Open rebuilds them from the salvaged file if this salvage is cut
	// short before its reindex (Ctrl-C, a kill); before, the old index
	// stayed and mnemo check failed until a reindex. They are kept, not
	// removed: a shard snapshot may be the only other copy of the text of
	// the messages the salvage lost (it was deleted, and nothing said so).
	if keptIndex, err = keepIndexes(dir, kept); err != nil {
		return "", "", fmt.Errorf("engine: salvage: %w (the salvaged database is in place; run salvage again to finish)", err)
	}
	if err := swapStep("marker"); err != nil {
		return "", "", err
	}
	if err := forgetDamage(dir); err != nil {
		return "", "", err
	}
	return kept, keptIndex, removeMarker(dir)
}

// swapFiles keeps the damaged files of dir under their kept name (which
// it returns) and renames salvaged over mnemo.db, the swap recorded.
func swapFiles(dir, salvaged string, at time.Time) (string, error) {
	db := filepath.Join(dir, DatabaseFile)
	kept := keptName(db, at)
	if err := os.Link(db, kept); err != nil {
		return "", fmt.Errorf("engine: salvage: keep the damaged file: %w", err)
	}
	if err := writeMarker(dir, filepath.Base(kept)); err != nil {
		os.Remove(kept)
		return "", err
	}
	if err := swapStep("wal"); err != nil {
		return "", err
	}
	for _, suffix := range []string{"-shm", "-wal"} {
		if err := os.Rename(db+suffix, kept+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("engine: salvage: keep the damaged file's %s: %w (run salvage again to finish)", suffix, err)
		}
	}
	syncDir(dir)
	if err := swapStep("main"); err != nil {
		return "", err
	}
	if err := os.Rename(salvaged, db); err != nil {
		return "", fmt.Errorf("engine: salvage: put the salvaged database in place: %w (the damaged one is kept as %s; run salvage again to finish)", err, kept)
	}
	syncDir(dir)
	return kept, nil
}

// keptIndexSuffix ends the name of the index directory a salvage kept
// beside the damaged database file it kept: mnemo.db.damaged-<UTC
// time>-index.
const keptIndexSuffix = "-index"

// keepIndexes moves dir's index directory (the lexical index and the
// shard snapshots derived from the damaged database) to kept +
// keptIndexSuffix, a rename on the same disk, and returns that path; ""
// when dir has no index directory (that path when it exists: a salvage
// resumed after it moved them). A directory already there is left, and
// dir's derived indexes are removed instead. A file in index/'s place is not an index: the indexes
// are removed as before.
func keepIndexes(dir, kept string) (string, error) {
	index := filepath.Join(dir, filepath.Dir(LexicalDir))
	to := kept + keptIndexSuffix
	fi, err := os.Lstat(index)
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Lstat(to); err == nil {
			return to, nil // moved by the salvage this one resumes
		}
		return "", nil
	}
	if _, terr := os.Lstat(to); err != nil || !fi.IsDir() || terr == nil {
		return "", removeIndexes(dir)
	}
	if err := os.Rename(index, to); err != nil {
		return "", fmt.Errorf("keep the indexes of the damaged database: %w", err)
	}
	syncDir(dir)
	return to, nil
}

// writeMarker records a swap whose damaged files are kept as kept (a base
// name), durably: written aside, synced, renamed into place.
func writeMarker(dir, kept string) error {
	tmp := filepath.Join(dir, swapMarker+".tmp")
	// A file left there (a crash) or a link planted there is removed, not
	// written through: O_TRUNC followed a link and emptied its target.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("engine: salvage: record the swap: %w", err)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString(kept + "\n")
		if serr := f.Sync(); err == nil {
			err = serr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, swapMarker))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("engine: salvage: record the swap: %w", err)
	}
	syncDir(dir)
	return nil
}

// forgetDamage removes the record of damage an earlier process left
// beside dir's mnemo.db (store.DamageMarkSuffix): the file it was about
// is kept aside, or was found sound, and the one in place is salvaged.
func forgetDamage(dir string) error {
	if _, err := store.RemoveDamageMark(filepath.Join(dir, DatabaseFile)); err != nil {
		return fmt.Errorf("engine: salvage: %w", err)
	}
	return nil
}

func removeMarker(dir string) error {
	if err := os.Remove(filepath.Join(dir, swapMarker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("engine: salvage: %w", err)
	}
	syncDir(dir)
	return nil
}

// readMarker returns the kept name (a path in dir) a swap in progress
// records; "" when none is.
func readMarker(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, swapMarker))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	name := strings.TrimSpace(string(b))
	if err != nil || name == "" || filepath.Base(name) != name {
		return "", fmt.Errorf("engine: %s: unreadable record of an interrupted salvage (%v): the damaged original is the newest %s.damaged-* file; move it back to %s, then delete this file", filepath.Join(dir, swapMarker), err, DatabaseFile, DatabaseFile)
	}
	return filepath.Join(dir, name), nil
}

// checkSwap is Open's check that no salvage was interrupted during its
// swap (ErrSalvageInterrupted when one was).
func checkSwap(dir string) error {
	kept, err := readMarker(dir)
	if err != nil || kept == "" {
		return err
	}
	return fmt.Errorf("%w (the damaged original is kept whole as %s); a salvage of %s finishes it (Salvage; mnemo salvage)", ErrSalvageInterrupted, kept, dir)
}

// resumeSwap finishes a swap that was interrupted (swapMarker present).
// When mnemo.db is still the damaged original, its -wal and -shm are put
// back beside it, its kept link removed and the record too: the directory
// is as before the salvage (resumed false; salvage again). When the
// salvaged file is already in place, the record is removed and resumed is
// true: what remains is rebuilding the indexes. kept is where the damaged
// files are.
func resumeSwap(dir string) (kept string, resumed bool, err error) {
	if kept, err = readMarker(dir); err != nil || kept == "" {
		return "", false, err
	}
	db := filepath.Join(dir, DatabaseFile)
	a, err := os.Stat(db)
	if err != nil {
		return "", false, fmt.Errorf("engine: salvage: resume: %w", err)
	}
	b, err := os.Stat(kept)
	if err != nil {
		return "", false, fmt.Errorf("engine: salvage: resume: the damaged original is not where %s says: %w", swapMarker, err)
	}
	if !os.SameFile(a, b) {
		if err := forgetDamage(dir); err != nil {
			return "", false, err
		}
		return kept, true, removeMarker(dir)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(db + suffix); err == nil {
			continue
		}
		if err := os.Rename(kept+suffix, db+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", false, fmt.Errorf("engine: salvage: resume: %w", err)
		}
	}
	syncDir(dir)
	if err := os.Remove(kept); err != nil {
		return "", false, fmt.Errorf("engine: salvage: resume: %w", err)
	}
	return "", false, removeMarker(dir)
}
