package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCheckDamagedDatabase: `mnemo check` on a database whose page holding
// a message's text was garbled (text changed, page header's fragmentation
// count wrong; every query still answers) exits 1 and says what to do.
// Before, it printed ok.
func TestCheckDamagedDatabase(t *testing.T) {
	const marker = "zanzibar-lighthouse-keeper"
	var reqs []engine.AppendRequest
	for i := range 40 {
		text := fmt.Sprintf("message %d about the weather in a town by the sea, with enough words to take some room", i)
		if i == 30 {
			text = "the " + marker + " said the refund was approved"
		}
		reqs = append(reqs, inThreadT(engine.Message{ID: fmt.Sprint("m", i), Role: "user", Content: text}))
	}
	dir := storedDir(t, engine.Config{}, false, reqs...)
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || !strings.Contains(out, "ok: the database passes SQLite's quick_check") {
		t.Fatalf("check before damage: exit %d\n%s%s", code, out, stderr)
	}

	rewriteFile(t, filepath.Join(dir, engine.DatabaseFile), func(b []byte) []byte {
		at := bytes.Index(b, []byte(marker))
		pageSize := int(binary.BigEndian.Uint16(b[16:18]))
		if at < pageSize {
			t.Fatalf("marker at %d (page size %d)", at, pageSize)
		}
		copy(b[at:], bytes.Repeat([]byte{'#'}, len(marker)))
		b[at/pageSize*pageSize+7] ^= 0x3c // fragmented-bytes count of the page
		return b
	})

	for _, args := range [][]string{{"check"}, {"check", "--full"}} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 {
			t.Fatalf("%v after damage: exit %d, want 1\n%s%s", args, code, out, stderr)
		}
		for _, want := range []string{"is damaged", "Fragmentation", "restore", "from a backup (how: docs/operations.md, \"Backups\";", "reindex"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
		checkListedOnce(t, stderr, "Fragmentation", "1 problem")
	}
	// With --json, the same advice on standard error and the report on
	// standard output (the known losses are not read from a damaged file).
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	rep := checkJSON(t, code, out, stderr)
	if rep.Action != "restore" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "database" || !strings.Contains(rep.Problems[0].Detail, "Fragmentation") || rep.KnownLosses != nil {
		t.Errorf("check --json after damage: %+v\n%s", rep, out)
	}
	checkListedOnce(t, stderr, "Fragmentation", "1 problem")
}

// checkReportJSON is `mnemo check --json`'s report as a test reads it.
type checkReportJSON struct {
	OK       bool   `json:"ok"`
	Action   string `json:"action"`
	Problems []struct {
		Kind   string `json:"kind"`
		Detail string `json:"detail"`
	} `json:"problems"`
	DatabaseCapped   bool     `json:"databaseCapped"`
	Rebuilt          string   `json:"rebuilt"`
	DeletedSnapshots []string `json:"deletedSnapshots"`
	Reembedding      []string `json:"reembedding"`
	KnownLosses      []any    `json:"knownLosses"`
}

// checkJSON decodes the report of a `mnemo check --json` that found
// damage: exit 1, one JSON document on standard output with ok false.
func checkJSON(t *testing.T, code int, out, stderr string) checkReportJSON {
	t.Helper()
	var rep checkReportJSON
	docs, err := jsonDocs(out)
	if code != 1 || err != nil || len(docs) != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.OK {
		t.Fatalf("check --json after damage: exit %d, %v, stdout\n%s\nstderr %s\nwant exit 1 and one report with ok false", code, err, out, stderr)
	}
	return rep
}

// TestCheckTruncatedDatabase: `mnemo check` (and any other command) on a
// mnemo.db cut short, which SQLite cannot open at all, exits 1 and says
// what to do (restore a backup or salvage, then reindex). Before, it
// printed only SQLite's "database disk image is malformed". With --json
// it prints its report (ok false, action restore, the database problem);
// it printed nothing before, where the other damage has one.
func TestCheckTruncatedDatabase(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{Role: "user", Content: "hello"}))
	if err := os.Truncate(filepath.Join(dir, engine.DatabaseFile), 4096); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"threads"}, {"check", "--json"}} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1\n%s%s", args, code, out, stderr)
		}
		for _, want := range []string{"malformed", "restore", "from a backup (how: docs/operations.md, \"Backups\";", "salvage", "reindex"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	rep := checkJSON(t, code, out, stderr)
	if rep.Action != "restore" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "database" || !strings.Contains(rep.Problems[0].Detail, "malformed") || strings.HasPrefix(rep.Problems[0].Detail, "engine:") || rep.KnownLosses != nil {
		t.Errorf("check --json: %+v, want action restore, one database problem, no knownLosses\n%s", rep, out)
	}
}

// TestCheckDamageFoundAtOpen: a lexical index directory that no longer
// opens (here a garbage root.bolt; a garbled segment does this too) is
// quarantined and rebuilt by Open, before Check runs. `mnemo check`
// reports it as the damage it is (exit 1, where the copy went, what to
// do), as it does damage it finds itself; the next check passes. Before,
// it printed "ok" and exited 0.
func TestCheckDamageFoundAtOpen(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true, inThreadT(engine.Message{Role: "user", Content: "the refund was approved"}))
	root := filepath.Join(dir, engine.LexicalDir, "store", "root.bolt")
	if err := os.WriteFile(root, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	rep := checkJSON(t, code, out, stderr)
	if rep.Action != "none" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "index" || !strings.HasPrefix(rep.Rebuilt, filepath.Join(dir, engine.QuarantineDir)) || rep.KnownLosses == nil {
		t.Errorf("check --json after damage: %+v\n%s", rep, out)
	}
	for _, want := range []string{"was found damaged", filepath.Join(dir, engine.QuarantineDir), "rebuilt from the database", "nothing is lost"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	checkListedOnce(t, stderr, "was found damaged", "1 problem")
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || !strings.Contains(out, "ok:") {
		t.Fatalf("second check: exit %d\n%s%s", code, out, stderr)
	}
}

// TestCheckDamagedSnapshot: a shard snapshot whose vector part is damaged
// (a load serves it before the background check of that part) is found by
// `mnemo check`, which deletes it and says that nothing is lost (exit 1,
// no reindex advised); the next check passes. Before, check printed "ok"
// with the file in place. One file is said in the singular (it said "1
// shard snapshot files failed their checksums").
func TestCheckDamagedSnapshot(t *testing.T) {
	var msgs []engine.Message
	for i := range 40 {
		msgs = append(msgs, engine.Message{Role: "user", Content: fmt.Sprintf("turn %d: the refund of order %d was approved", i, i*7)})
	}
	// The engine's Close writes the resource's snapshot.
	dir := storedDir(t, engine.Config{RecallTuning: recall.Tuning{SnapshotMin: 1}}, true, inThreadT(msgs...))
	files, _ := filepath.Glob(filepath.Join(dir, engine.SnapshotDir, "*.snap"))
	if len(files) != 1 {
		t.Fatalf("snapshot files %q, want 1", files)
	}
	rewriteFile(t, files[0], func(b []byte) []byte {
		b[len(b)-24-64] ^= 0x5a // in the vector part, before the 24-byte footer
		return b
	})
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	rep := checkJSON(t, code, out, stderr)
	if rep.Action != "none" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "index" || fmt.Sprint(rep.DeletedSnapshots) != fmt.Sprint([]string{filepath.Base(files[0])}) {
		t.Errorf("check --json after damage: %+v\n%s", rep, out)
	}
	for _, want := range []string{filepath.Base(files[0]), "1 shard snapshot file failed its checksums", "The damaged shard snapshot file was deleted: nothing is lost"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	checkListedOnce(t, stderr, filepath.Base(files[0]), "1 problem")
	if strings.Contains(stderr, "reindex") {
		t.Errorf("stderr advises a reindex for a repaired snapshot:\n%s", stderr)
	}
	if _, err := os.Stat(files[0]); err == nil {
		t.Error("the damaged snapshot is still there")
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || !strings.Contains(out, "ok:") {
		t.Fatalf("second check: exit %d\n%s%s", code, out, stderr)
	}
}

// checkListedOnce fails unless check's stderr says finding once, above a
// last line that counts the findings instead of repeating them ("mnemo
// check: 1 problem (listed above)"); before, the last line was the
// error's text, every finding again ("mnemo check: inconsistent: …").
func checkListedOnce(t *testing.T, stderr, finding, problems string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if got, want := lines[len(lines)-1], "mnemo check: "+problems+" (listed above)"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	if n := strings.Count(stderr, finding); n != 1 {
		t.Errorf("stderr says %q %d times, want once:\n%s", finding, n, stderr)
	}
}
