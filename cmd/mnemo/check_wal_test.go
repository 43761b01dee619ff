package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// damagedWALDir returns a data directory whose mnemo.db and WAL are a
// crash image of 20 appends (copied while the engine was open, a reader
// pinning the WAL so that no checkpoint copied them into mnemo.db), one
// byte flipped in the page of a frame that a later frame writes again
// (rewritten) or that none does.
func damagedWALDir(t *testing.T, rewritten bool) string {
	t.Helper()
	ctx := context.Background()
	live := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: live, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(live, engine.DatabaseFile)
	ro, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	pin, err := ro.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Rollback()
	var n int
	if err := pin.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path + "-wal") // the open's frames: the flip goes past them
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		text := fmt.Sprintf("harbour note %d: ", i) + strings.Repeat("tide and rope ", 120)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" {
			b = flipFrame(t, b, before.Size(), rewritten)
		}
		if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// flipFrame flips a byte in the page of a frame of the WAL b, past the
// first third of the frames after its first opened bytes (the engine's
// open wrote those: its migrations' frames grow with the schema, and a
// flip there lost every append), whose page is written again by a later
// frame through the last commit (rewritten) or not.
func flipFrame(t *testing.T, b []byte, opened int64, rewritten bool) []byte {
	t.Helper()
	s := store.ScanWAL(b)
	ps := int(binary.BigEndian.Uint32(b[8:]))
	off := func(i int) int { return 32 + (i-1)*(24+ps) }
	pgno := func(i int) uint32 { return binary.BigEndian.Uint32(b[off(i):]) }
	first := max(int(opened-32), 0)/(24+ps) + 1 // the first frame the appends wrote
	for k := first + (s.LastCommit-first)/3; k < s.LastCommit-2; k++ {
		again := false
		for j := k + 1; j <= s.LastCommit; j++ {
			again = again || pgno(j) == pgno(k)
		}
		if again == rewritten {
			b[off(k)+24+ps/2] ^= 0x5a
			return b
		}
	}
	t.Fatalf("no frame whose page is rewritten=%v in %d frames", rewritten, s.LastCommit)
	return nil
}

// TestCheckDamagedWAL: mnemo check on a data directory whose WAL lost
// commits to a damaged frame exits 1 naming the kept copy of the log,
// the frames and commits not applied and what to do (--json: a problem
// of kind "wal", action restore), at that first open and every check
// after, until the copy is deleted; keptDamaged lists the copy and the
// -shm kept with it. A log repaired exactly is a note of a passing check
// naming both, and mnemo delete names both. Before, check said ok and the
// log was gone; then the -shm copy was named only by the finding.
func TestCheckDamagedWAL(t *testing.T) {
	t.Run("NotApplied", func(t *testing.T) {
		dir := damagedWALDir(t, false)
		for range 2 { // the open that keeps the log, then a check of the kept copy
			code, out, stderr := run(t, nil, "--dir", dir, "check")
			kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-wal.damaged-*"))
			shm, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-shm.damaged-*"))
			if code != 1 || len(kept) != 1 || !strings.Contains(stderr, filepath.Base(kept[0])) || len(shm) != 1 ||
				!strings.Contains(stderr, "kept with its -shm, "+filepath.Base(shm[0])) || !strings.Contains(stderr, "and the -shm kept with it") ||
				!strings.Contains(stderr, "were not applied") || !strings.Contains(stderr, "What to do") ||
				!strings.Contains(stderr, `taken after them, if there is one (how: docs/operations.md, "Backups")`) {
				t.Fatalf("check: exit %d, kept %v\n%s%s", code, kept, out, stderr)
			}
		}
		code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
			t.Fatalf("check --json: exit %d (%v)\n%s%s", code, err, out, stderr)
		}
		if rep.OK || rep.Action != "restore" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "wal" || len(rep.KeptDamaged) != 2 ||
			rep.KeptDamaged[1] != strings.Replace(rep.KeptDamaged[0], "-wal.", "-shm.", 1) {
			t.Fatalf("check --json: %+v, want the kept log and its -shm in keptDamaged", rep)
		}
		if err := os.Remove(filepath.Join(dir, rep.KeptDamaged[0])); err != nil {
			t.Fatal(err)
		}
		shm := rep.KeptDamaged[1]
		code, out, stderr = run(t, nil, "--dir", dir, "check", "--json")
		rep = checkReport{}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.KeptDamaged) != 1 || rep.KeptDamaged[0] != shm {
			t.Fatalf("check --json once the copy is deleted: exit %d (%v), keptDamaged %v, want [%s] (its -shm is still kept)\n%s%s", code, err, rep.KeptDamaged, shm, out, stderr)
		}
	})
	t.Run("Repaired", func(t *testing.T) {
		dir := damagedWALDir(t, true)
		code, out, stderr := run(t, nil, "--dir", dir, "check")
		kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-[ws][ah][lm].damaged-*"))
		if code != 0 || len(kept) != 2 || !strings.Contains(stderr, "mnemo check: note: the write-ahead log was found damaged when the database was opened, and repaired: every commit was applied") ||
			!strings.Contains(stderr, "Kept as found: "+filepath.Base(kept[1])+", "+filepath.Base(kept[0])+" (") || strings.Contains(out, "note:") {
			t.Fatalf("check: exit %d, kept %v\n%s%s", code, kept, out, stderr)
		}
		if code, out, stderr := run(t, nil, "--dir", dir, "messages", "--thread", "t"); code != 0 || strings.Count(out, "harbour note") != 20 {
			t.Fatalf("messages: exit %d, %d notes\n%s", code, strings.Count(out, "harbour note"), stderr)
		}
		// mnemo delete names both copies: the -shm too, which it left out;
		// it counts them as log copies, not as "2 damaged database files".
		code, out, stderr = run(t, nil, "--dir", dir, "delete", "--resource", "r", "--yes")
		if code != 0 || !strings.Contains(stderr, "note: 2 copies of its write-ahead log or -shm, kept in") || strings.Contains(stderr, "database file") ||
			!strings.Contains(stderr, "("+filepath.Base(kept[1])+", "+filepath.Base(kept[0])+")") {
			t.Fatalf("delete: exit %d, kept %v\n%s%s", code, kept, out, stderr)
		}
	})
}

// TestCheckSetAsideNote: mnemo check on a directory whose log a
// checkpoint had copied wholly into mnemo.db before it was damaged (wal3:
// the log is set aside unapplied, nothing lost) passes, and its note says
// that plain truth; it said "repaired: every commit was applied … (or set
// aside unapplied …)" whichever it was (and the same of a -shm copy whose
// log copy was deleted). mnemo delete then counts that -shm copy as a
// log's, not as a database file.
func TestCheckSetAsideNote(t *testing.T) {
	dir, frames := enginetest.CheckpointedWALImage(t, 24)
	enginetest.DamageCheckpointedWAL(t, dir, frames, enginetest.WALDamages[0].Damage)
	for range 2 { // the open that sets the log aside, then a check of the kept copy
		code, out, stderr := run(t, nil, "--dir", dir, "check")
		kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-[ws][ah][lm].damaged-*"))
		if code != 0 || len(kept) != 2 || strings.Contains(out+stderr, "repaired") ||
			!strings.Contains(stderr, "set aside unapplied: every commit in it was already in "+engine.DatabaseFile+" (a checkpoint had copied them), nothing is lost. Kept as found: "+filepath.Base(kept[1])+", "+filepath.Base(kept[0])+" (") {
			t.Fatalf("check: exit %d, kept %v\n%s%s", code, kept, out, stderr)
		}
	}
	// Once the log copy is deleted, its -shm copy is no repaired log.
	logs, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-wal.damaged-*"))
	if len(logs) != 1 {
		t.Fatalf("kept logs %v, want one", logs)
	}
	if err := os.Remove(logs[0]); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || strings.Contains(out+stderr, "repaired") || strings.Contains(out+stderr, "set aside") ||
		!strings.Contains(stderr, "mnemo check: note: ") || !strings.Contains(stderr, "kept with a damaged write-ahead log whose kept copy is gone") {
		t.Fatalf("check without the log copy: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "delete", "--resource", "r", "--yes")
	if code != 0 || !strings.Contains(stderr, "note: 1 copy of its write-ahead log or -shm, kept in") || strings.Contains(stderr, "database file") {
		t.Fatalf("delete: exit %d\n%s%s", code, out, stderr)
	}
}

// TestWALDamageWarning: the first command after a crash is the only one
// whose open finds the write-ahead log damaged (SQLite's recovery then
// rewrites it), and the engine's warning went to no logger: mnemo
// messages said nothing of the commits it could not apply. Now every
// command's open prints one line on standard error: a warning naming
// the kept copy and mnemo check when commits were not applied, a note
// when the log was repaired exactly; the answer on standard output (valid
// JSON with --json) is what was recovered, exit 0; the next command
// prints nothing (mnemo check reports the kept copy from then on).
func TestWALDamageWarning(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rewritten bool
		want      []string
		notes     func(n int) bool
	}{
		{"NotApplied", false, []string{"mnemo: warning: ", "were NOT applied", "run mnemo check"}, func(n int) bool { return n > 0 && n < 20 }},
		{"Repaired", true, []string{"mnemo: note: ", "repaired exactly", "nothing was lost"}, func(n int) bool { return n == 20 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := damagedWALDir(t, tc.rewritten)
			code, out, stderr := run(t, nil, "--dir", dir, "messages", "--thread", "t", "--json")
			kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+"-wal.damaged-*"))
			var ms []map[string]any
			if err := json.Unmarshal([]byte(out), &ms); err != nil || code != 0 || !tc.notes(len(ms)) {
				t.Fatalf("messages --json: exit %d, %d messages (%v)\n%s%s", code, len(ms), err, out, stderr)
			}
			if len(kept) != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, kept[0]) {
				t.Fatalf("stderr %q, want one line naming the kept log %v", stderr, kept)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Fatalf("stderr %q, want %q", stderr, w)
				}
			}
			code, out, stderr = run(t, nil, "--dir", dir, "messages", "--thread", "t")
			if code != 0 || stderr != "" || !tc.notes(strings.Count(out, "harbour note")) {
				t.Fatalf("the next messages: exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// TestSalvageDamagedWAL: mnemo salvage of a directory whose write-ahead
// log lost commits to a damaged frame says so (its copy's log could not
// be repaired exactly): the commits not applied are not in the salvaged
// database but in the damaged file's kept log, which it names; --json
// has them as wal. A log repaired exactly is a note. Before, the report
// said nothing of them.
func TestSalvageDamagedWAL(t *testing.T) {
	dir := damagedWALDir(t, false)
	code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--force")
	// The warning is on standard error (cli58: it was among the results
	// on standard output); the results still name the kept file.
	if code != 0 || !strings.Contains(stderr, "mnemo salvage: warning: the write-ahead log was found damaged") || !strings.Contains(stderr, "could not be applied") ||
		!strings.Contains(stderr, engine.DatabaseFile+".damaged-") || !strings.Contains(stderr, "-wal (restore") || strings.Contains(out, "write-ahead log was found damaged") ||
		!strings.Contains(out, engine.DatabaseFile+".damaged-") {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	dir = damagedWALDir(t, true)
	code, out, stderr = run(t, nil, "--dir", dir, "salvage", "--force", "--json")
	var rep engine.SalvageReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.WAL == nil || !rep.WAL.Repaired ||
		rep.WAL.Kept != rep.Damaged+"-wal" || len(rep.WAL.DamagedFrames) == 0 || stderr != "" {
		t.Fatalf("salvage --json: exit %d (%v), wal %+v\n%s%s", code, err, rep.WAL, out, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "messages", "--thread", "t"); code != 0 || strings.Count(out, "harbour note") != 20 {
		t.Fatalf("messages after the salvage: exit %d, %d notes", code, strings.Count(out, "harbour note"))
	}
}

// TestCheckSalvagedWAL: after mnemo salvage of a directory whose
// write-ahead log lost commits to a damaged frame (its copy's log could
// not be repaired), mnemo check exits 1 naming the log kept with the
// damaged file (mnemo.db.damaged-<UTC time>-wal) and its -shm copy, as
// it names an open's kept log (--json: a problem of kind "wal", action
// restore), and the salvage does not say check passes; once that log is
// deleted check passes. Before, only the salvage report named it and
// check (and the salvage's last line) said ok.
func TestCheckSalvagedWAL(t *testing.T) {
	dir := damagedWALDir(t, false)
	code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--force")
	kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+".damaged-*-wal"))
	if code != 0 || len(kept) != 1 || strings.Contains(out, "mnemo check: ok") ||
		!strings.Contains(out, "mnemo check fails, naming "+filepath.Base(kept[0])+", until it is deleted") {
		t.Fatalf("salvage: exit %d, kept %v\n%s%s", code, kept, out, stderr)
	}
	keptLog := filepath.Base(kept[0])
	keptSHM := strings.TrimSuffix(keptLog, "-wal") + "-shm"
	if _, err := os.Stat(filepath.Join(dir, keptSHM)); err != nil {
		t.Fatalf("the salvage kept no %s: %v", keptSHM, err)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, keptLog+": the write-ahead log of the damaged database a salvage kept") ||
		!strings.Contains(stderr, "kept with its -shm, "+keptSHM) || !strings.Contains(stderr, "were not applied") || !strings.Contains(stderr, "What to do") {
		t.Fatalf("check: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("check --json: exit %d (%v)\n%s%s", code, err, out, stderr)
	}
	if rep.OK || rep.Action != "restore" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "wal" || !strings.HasPrefix(rep.Problems[0].Detail, keptLog+":") {
		t.Fatalf("check --json: %+v", rep)
	}
	if err := os.Remove(kept[0]); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Fatalf("check once the log is deleted: exit %d\n%s%s", code, out, stderr)
	}
}

// TestBackupDamagedWAL: mnemo backup of a directory no process holds,
// whose write-ahead log has commits past a damaged frame, exits 1 saying
// so and what to do (engine.ErrWALDamaged), with no DEST: its read-only
// read would have copied what SQLite recovers (2 of 20 messages here)
// and said "backed up". Once an open kept and repaired the log (mnemo
// check), the backup has every message.
func TestBackupDamagedWAL(t *testing.T) {
	dir := damagedWALDir(t, true)
	dest := filepath.Join(t.TempDir(), "backup")
	code, out, stderr := run(t, nil, "--dir", dir, "backup", dest)
	if _, err := os.Stat(dest); code != 1 || !strings.Contains(stderr, "write-ahead log is damaged") || !strings.Contains(stderr, "mnemo check") || err == nil {
		t.Fatalf("backup: exit %d, dest %v\n%s%s", code, err, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "backup", dest); code != 0 || !strings.Contains(out, "(20 messages") {
		t.Fatalf("backup after check: exit %d\n%s%s", code, out, stderr)
	}
}
