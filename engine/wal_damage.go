package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// A damaged write-ahead log. SQLite's recovery applies mnemo.db-wal's
// frames in order and stops at the first that fails its checksum,
// dropping every later commit without an error (and the first close then
// checkpoints and deletes the log). So store.Open scans the log first:
// when valid commits lie past a damaged frame it keeps the log as found,
// as mnemo.db-wal.damaged-<UTC time> (with its -shm), and repairs the
// log when that is exact (store.WALScan.Exact), else opens with what
// SQLite recovers. Open does not refuse: a damaged file never bricks a
// directory, the later commits are kept byte for byte in that copy, and
// the loss is said loudly: a warning in the log at every such Open, and
// Check's finding (CheckError.WAL) for as long as the copy is kept.

// warnWAL logs what store.Open found damaged in the write-ahead log.
func (e *Engine) warnWAL() {
	d := store.WALDamageOf(e.db)
	if d == nil {
		return
	}
	if d.Repaired {
		e.log.Warn("the database's write-ahead log was found damaged and repaired exactly: every commit applied, nothing lost; the damaged log is kept as found",
			"log", d.Log, "kept", d.Kept, "damagedFrames", d.Scan.Damaged)
		return
	}
	e.log.Warn("the database's write-ahead log was found damaged: commits after the damage were NOT applied and are not in the database; the damaged log is kept as found (mnemo check names it and says what to do)",
		"log", d.Log, "kept", d.Kept, "damagedFrames", d.Scan.Damaged, "appliedThroughFrame", d.Scan.Applied,
		"framesNotApplied", d.Scan.NotApplied, "commitsNotApplied", d.Scan.NotAppliedCommits)
}

// keptWALFindings returns one finding for each copy of a damaged
// write-ahead log kept in dir (store.KeptWALPattern) whose commits were
// not applied (one repaired exactly lost nothing and is no finding).
func keptWALFindings(dir string) []string {
	found, _ := filepath.Glob(store.KeptWALPattern(filepath.Join(dir, DatabaseFile)))
	var out []string
	for _, kept := range found {
		if strings.HasSuffix(kept, "-shm") {
			continue
		}
		b, err := os.ReadFile(kept)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: a kept copy of a damaged write-ahead log could not be read (%v)", filepath.Base(kept), err))
			continue
		}
		s := store.ScanWAL(b)
		if !s.Lost() || s.Exact {
			continue
		}
		out = append(out, fmt.Sprintf("%s: the write-ahead log was found damaged when the database was opened (frame %s): %d commits (%d frames) after frame %d were not applied and are not in %s",
			filepath.Base(kept), joinInts(s.Damaged), s.NotAppliedCommits, s.NotApplied, s.Applied, DatabaseFile))
	}
	return out
}

// joinInts says ns as "3, 7, 9", the first ten of them ("…, and 4 more").
func joinInts(ns []int) string {
	s := make([]string, 0, 10)
	for _, n := range ns[:min(len(ns), 10)] {
		s = append(s, fmt.Sprint(n))
	}
	if len(ns) > 10 {
		s = append(s, fmt.Sprintf("and %d more", len(ns)-10))
	}
	return strings.Join(s, ", ")
}
