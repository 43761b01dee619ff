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
// the loss is said loudly: a warning in the log at every such Open (and
// Engine.WALDamage, for a caller without a Logger), and Check's finding
// (CheckError.WAL) for as long as the copy is kept.

// WALDamage is what Open found in the data directory's write-ahead log
// (mnemo.db-wal) before SQLite read it: valid commits after a damaged
// frame, which SQLite's recovery would have dropped without an error.
// Frames are numbered from 1, as in SQLite.
type WALDamage struct {
	// Log is the write-ahead log's path: <dir>/mnemo.db-wal.
	Log string `json:"log"`
	// Kept is the path of the copy of the log as it was found:
	// <dir>/mnemo.db-wal.damaged-<UTC time>[-N] (mode 0600, its -shm
	// beside it as mnemo.db-shm.damaged-<same suffix>). No erasure
	// reaches it: it may hold text later erased from the database. Empty
	// in a SalvageReport whose damaged file was not kept.
	Kept string `json:"kept,omitempty"`
	// Repaired is set when the log was repaired exactly (its checksums
	// chained again) so that SQLite applied every commit: nothing was
	// lost. Unset, the CommitsNotApplied commits are not in the database
	// and are only in Kept: restore from a backup taken after them, or
	// delete Kept to accept the loss (mnemo check says so until then).
	Repaired bool `json:"repaired"`
	// DamagedFrames lists the frames that failed their checks, up to the
	// log's last valid commit; never empty, unless SetAside or Before is
	// all there is (a log whose damage left no valid commit after it).
	DamagedFrames []int `json:"damagedFrames"`
	// AppliedThroughFrame is the last frame SQLite's recovery applied
	// of the damaged log (0: none): the last commit before the first
	// damaged frame.
	AppliedThroughFrame int `json:"appliedThroughFrame"`
	// FramesNotApplied counts the valid frames after AppliedThroughFrame,
	// through the last commit, that SQLite's recovery did not apply, and
	// CommitsNotApplied the commits (transactions) among them; both > 0
	// (but with SetAside, where both are 0 when nothing was lost).
	// With Repaired they were applied by the repair all the same.
	FramesNotApplied int `json:"framesNotApplied"`
	// CommitsNotApplied counts the commits among those frames.
	CommitsNotApplied int `json:"commitsNotApplied"`
	// BytesMissingAt lists the offsets, in the log as found, at which
	// bytes were missing from it (cut out of its middle: every later
	// frame was off SQLite's frame grid); frames are
	// numbered as if zero bytes filled each gap. Usually empty.
	BytesMissingAt []int64 `json:"bytesMissingAt,omitempty"`
	// SetAside is set when the log's -shm said a checkpoint had copied
	// frames past the damage into mnemo.db already: applying the log's valid prefix would have
	// written older page versions over newer ones, so the log was not
	// applied at all (kept as Kept, then removed with its -shm) and
	// mnemo.db opened alone. AppliedThroughFrame is then the -shm's
	// nBackfill (the frames mnemo.db holds), and FramesNotApplied and
	// CommitsNotApplied count the frames after it through the -shm's last
	// committed frame: both 0 when nothing was lost.
	SetAside bool `json:"setAside,omitempty"`
	// Before is set when no valid -shm said what mnemo.db held and the log
	// could not be repaired, or its damage left no commit after it (then
	// Before is all there is: no log kept, nothing counted not applied)
	// while mnemo.db held pages newer than the log's valid prefix (a
	// checkpoint had copied the damaged last transaction): the copy of
	// mnemo.db as it was before SQLite applied the log's valid prefix,
	// <dir>/mnemo.db.before-wal-<UTC time>[-N] (mode 0600), so nothing
	// committed is lost: if mnemo.db reads wrong (mnemo check), restore
	// it from this copy. Listed by KeptDamaged. "" otherwise.
	Before string `json:"before,omitempty"`
}

// Lost reports whether commits of the log are not in the database: it was
// not repaired and frames it held were not applied (with SetAside: frames
// past the checkpoint). False for a log set aside whose every frame a
// checkpoint had copied, and for one repaired exactly.
func (d *WALDamage) Lost() bool { return !d.Repaired && d.FramesNotApplied > 0 }

// WALDamage returns what this Open found damaged in the data directory's
// write-ahead log (a copy: changing it changes nothing), or nil when the
// log was sound, absent, or held no commit past a damaged frame, on
// Postgres, and after Close. Only the first Open after the damage finds
// it: SQLite's recovery then rewrites the log. Open logs the same at
// Warn to Config.Logger; Check reports an unrepaired one (CheckError.WAL)
// for as long as its kept copy is in the directory.
func (e *Engine) WALDamage() *WALDamage {
	if e.pool != nil {
		return nil
	}
	return walDamage(store.WALDamageOf(e.db))
}

// walDamage is d, store's account of a damaged log, for the engine's
// callers; nil for nil.
func walDamage(d *store.WALDamage) *WALDamage {
	if d == nil {
		return nil
	}
	w := scanDamage(d.Log, d.Kept, d.Scan, d.Repaired)
	w.Before = d.Before
	if d.SetAside {
		w.SetAside, w.AppliedThroughFrame = true, d.Checkpointed
		w.FramesNotApplied, w.CommitsNotApplied = d.MxFrame-d.Checkpointed, d.LostCommits
	}
	return w
}

// scanDamage is a WALDamage of the log at log, kept as kept, from its
// scan s.
func scanDamage(log, kept string, s *store.WALScan, repaired bool) *WALDamage {
	return &WALDamage{
		Log: log, Kept: kept, Repaired: repaired,
		DamagedFrames:       append([]int(nil), s.Damaged...),
		AppliedThroughFrame: s.Applied,
		FramesNotApplied:    s.NotApplied,
		CommitsNotApplied:   s.NotAppliedCommits,
		BytesMissingAt:      append([]int64(nil), s.Gaps...),
	}
}

// warnWAL logs what store.Open found damaged in the write-ahead log.
func (e *Engine) warnWAL() {
	d := store.WALDamageOf(e.db)
	if d == nil {
		return
	}
	if d.SetAside {
		e.log.Warn("the database's write-ahead log was found damaged, and its -shm says a checkpoint had copied frames past the damage into the database already: the log was set aside unapplied (kept as found) and the database opened alone",
			append([]any{"log", d.Log, "kept", d.Kept, "damagedFrames", d.Scan.Damaged, "checkpointedThroughFrame", d.Checkpointed,
				"framesNotApplied", d.MxFrame - d.Checkpointed, "commitsNotApplied", d.LostCommits}, gapAttr(d.Scan)...)...)
		return
	}
	if d.Before != "" {
		e.log.Warn("the database's write-ahead log was found damaged and no valid -shm says what the database held: a copy of the database as it was before the log's valid prefix was applied is kept", "before", d.Before)
	}
	if !d.Scan.Lost() && !d.Repaired {
		return // damage in its last transaction: the copy is all there is to say
	}
	if d.Repaired {
		e.log.Warn("the database's write-ahead log was found damaged and repaired exactly: every commit applied, nothing lost; the damaged log is kept as found",
			append([]any{"log", d.Log, "kept", d.Kept, "damagedFrames", d.Scan.Damaged}, gapAttr(d.Scan)...)...)
		return
	}
	e.log.Warn("the database's write-ahead log was found damaged: commits after the damage were NOT applied and are not in the database; the damaged log is kept as found (mnemo check names it and says what to do)",
		append([]any{"log", d.Log, "kept", d.Kept, "damagedFrames", d.Scan.Damaged, "appliedThroughFrame", d.Scan.Applied,
			"framesNotApplied", d.Scan.NotApplied, "commitsNotApplied", d.Scan.NotAppliedCommits}, gapAttr(d.Scan)...)...)
}

// gapAttr is the log attribute naming where bytes were missing from the
// scanned log (bytesMissingAt: offsets), or none.
func gapAttr(s *store.WALScan) []any {
	if len(s.Gaps) == 0 {
		return nil
	}
	return []any{"bytesMissingAt", s.Gaps}
}

// keptWALFindings returns one finding for each copy of a damaged
// write-ahead log kept in dir whose commits were not applied: an Open's
// (store.KeptWALPattern) and a salvage's, the log of the damaged database
// it kept (salvagedWALPattern: its copy's log could not be repaired, so
// those commits are not in the salvaged mnemo.db either). A log that can
// be repaired exactly lost nothing and is no finding.
func keptWALFindings(dir string) []string {
	opened, _ := filepath.Glob(store.KeptWALPattern(filepath.Join(dir, DatabaseFile)))
	salvaged, _ := filepath.Glob(filepath.Join(dir, salvagedWALPattern))
	var out []string
	for _, kept := range append(opened, salvaged...) {
		s, err := store.ScanKeptWAL(kept)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: a kept copy of a damaged write-ahead log could not be read (%v)", filepath.Base(kept), err))
			continue
		}
		if s == nil {
			continue
		}
		if ckpt, mx, aside, _ := store.Checkpointed(keptSHM(kept), s); aside {
			if mx > ckpt {
				out = append(out, fmt.Sprintf("%s: the write-ahead log was found damaged when the database was opened (frame %s%s) and set aside unapplied, since a checkpoint had copied frames through %d into %s: frames %d..%d were not applied and are not in %s%s",
					filepath.Base(kept), joinInts(s.Damaged), gapNote(s), ckpt, DatabaseFile, ckpt+1, mx, DatabaseFile, shmPartner(kept)))
			}
			continue
		}
		if !s.Lost() || s.Exact {
			continue
		}
		found := "the write-ahead log was found damaged when the database was opened"
		if strings.HasSuffix(kept, "-wal") {
			found = "the write-ahead log of the damaged database a salvage kept was found damaged"
		}
		out = append(out, fmt.Sprintf("%s: %s (frame %s%s): %d commits (%d frames) after frame %d were not applied and are not in %s%s",
			filepath.Base(kept), found, joinInts(s.Damaged), gapNote(s), s.NotAppliedCommits, s.NotApplied, s.Applied, DatabaseFile, shmPartner(kept)))
	}
	return out
}

// KeptWALCheckpointed reports whether the kept copy of a damaged
// write-ahead log at path (an Open's: mnemo.db-wal.damaged-*) is one the
// open set aside unapplied with every commit it held in mnemo.db already:
// the -shm kept beside it says a checkpoint had copied all its committed
// frames (its nBackfill equals its mxFrame). False for any other
// copy (one repaired exactly, one whose commits were not applied), and
// when it cannot be read.
func KeptWALCheckpointed(path string) bool {
	s, err := store.ScanKeptWAL(path)
	if err != nil || s == nil {
		return false
	}
	ckpt, mx, aside, _ := store.Checkpointed(keptSHM(path), s)
	return aside && ckpt == mx
}

// salvagedWALPattern matches, in a data directory, the write-ahead logs of
// the damaged databases salvages kept (swapDatabase: mnemo.db-wal moved
// beside mnemo.db.damaged-<UTC time>[-N] as its -wal).
const salvagedWALPattern = DatabaseFile + ".damaged-*-wal"

// shmPartner says which -shm was kept with the kept log copy kept (an
// Open's <db>-shm.damaged-<same suffix>, a salvage's <db>.damaged-<UTC
// time>-shm): "; kept with its -shm, NAME", or "" when there is none.
// Deleting the log copy to accept the loss leaves it, and check no longer
// mentions it: the finding names both.
func shmPartner(kept string) string {
	shm := keptSHM(kept)
	if _, err := os.Lstat(shm); err != nil {
		return ""
	}
	return "; kept with its -shm, " + filepath.Base(shm)
}

// keptSHMPattern matches, in a data directory, the -shm copies an Open
// kept with its copies of a damaged write-ahead log (store.KeptWALPattern).
const keptSHMPattern = DatabaseFile + "-shm.damaged-*"

// keptSHM is the path of the -shm kept with the kept log copy kept (which
// may not exist).
func keptSHM(kept string) string {
	if base, ok := strings.CutSuffix(kept, "-wal"); ok {
		return base + "-shm"
	}
	dir, base := filepath.Split(kept)
	return filepath.Join(dir, strings.Replace(base, DatabaseFile+"-wal.damaged-", DatabaseFile+"-shm.damaged-", 1))
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

// gapNote says where bytes were missing from the scanned log ("; bytes
// missing at offset 4120", "; bytes missing at offsets 4120, 9000"), or
// "".
func gapNote(s *store.WALScan) string {
	if len(s.Gaps) == 0 {
		return ""
	}
	offs := make([]string, len(s.Gaps))
	for i, g := range s.Gaps {
		offs[i] = fmt.Sprint(g)
	}
	if len(offs) == 1 {
		return "; bytes missing at offset " + offs[0]
	}
	return "; bytes missing at offsets " + strings.Join(offs, ", ")
}
