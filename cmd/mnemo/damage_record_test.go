package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

// recordedDir is a sound data directory of one thread with a record of
// damage beside its mnemo.db, as a restored backup has: the record's
// path is returned too.
func recordedDir(t *testing.T) (dir, record string) {
	t.Helper()
	dir = storedDir(t, engine.Config{}, true, engine.AppendRequest{ThreadID: "t", ResourceID: "r",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "the harbour master logged the ferry at noon"}}})
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := store.RecordDamage(path, time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC), "database disk image is malformed (11)"); err != nil {
		t.Fatal(err)
	}
	return dir, path + store.DamageMarkSuffix
}

// TestDamageRecordCheckJSON: check --json says what became of the record
// of damage. A quick check that finds nothing while the record remains
// is not ok (ok false, action check-full, damageRecord remains, exit 1:
// every write is still refused); check --full that removes it says
// damageRecord removed, ok; with no record the member is absent. Before,
// both printed ok:true, action none, exit 0, and the record only in a
// note on standard error.
func TestDamageRecordCheckJSON(t *testing.T) {
	dir, record := recordedDir(t)
	type report struct { // the members as a reader of the JSON sees them
		OK           bool   `json:"ok"`
		Action       string `json:"action"`
		DamageRecord string `json:"damageRecord"`
		Problems     []any  `json:"problems"`
	}
	check := func(args ...string) (int, report, string) {
		t.Helper()
		code, out, stderr := run(t, nil, append([]string{"--dir", dir, "check", "--json"}, args...)...)
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check --json %v: %v\n%s%s", args, err, out, stderr)
		}
		return code, rep, stderr
	}
	code, rep, stderr := check()
	if code != 1 || rep.OK || rep.Action != "check-full" || rep.DamageRecord != "remains" || len(rep.Problems) != 0 {
		t.Fatalf("quick check with the record: exit %d, ok %v, action %q, damageRecord %q, problems %v; want exit 1, ok false, check-full, remains, none\n%s",
			code, rep.OK, rep.Action, rep.DamageRecord, rep.Problems, stderr)
	}
	if !strings.Contains(stderr, "remains") || !strings.Contains(stderr, "mnemo check: the record of damage remains") {
		t.Errorf("quick check with the record: stderr lacks the note and the error\n%s", stderr)
	}
	code, rep, stderr = check("--full")
	if code != 0 || !rep.OK || rep.Action != "none" || rep.DamageRecord != "removed" {
		t.Fatalf("full check with the record: exit %d, ok %v, action %q, damageRecord %q; want exit 0, ok, none, removed\n%s", code, rep.OK, rep.Action, rep.DamageRecord, stderr)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the record after check --full: %v, want it removed", err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	if code != 0 || strings.Contains(out, "damageRecord") {
		t.Errorf("quick check without a record: exit %d, want 0 and no damageRecord\n%s%s", code, out, stderr)
	}
}

// TestDamageRecordSalvageSound: mnemo salvage of a sound file with a
// record of damage removes it and says so, as check --full does (it said
// "nothing was changed" and no more); the file itself is not changed.
func TestDamageRecordSalvageSound(t *testing.T) {
	dir, record := recordedDir(t)
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	if code != 0 || !strings.Contains(out, "nothing to salvage") || strings.Contains(out, "nothing was changed") {
		t.Fatalf("salvage of a sound file: exit %d, want 0, nothing to salvage, not 'nothing was changed'\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the record after salvage found the file sound: %v, want it removed", err)
	}
	if want := "mnemo salvage: note: the record of damage " + record + " (found damaged at 2026-12-07T07:00:00Z: database disk image is malformed (11)) was removed"; !strings.Contains(stderr, want) {
		t.Errorf("salvage stderr lacks %q\n%s", want, stderr)
	}
	// Without a record, no word of one.
	if code, _, stderr := run(t, nil, "--dir", dir, "salvage"); code != 0 || strings.Contains(stderr, "record") {
		t.Errorf("salvage without a record: exit %d, want 0 and no word of a record\n%s", code, stderr)
	}
}

// TestDamageRecordSalvageJSON: mnemo salvage --json says what became of
// the record of damage, in check --json's words: damageRecord removed
// after a salvage that replaced the damaged file, and after one that
// found it sound; absent when there was none. Before, the member did not
// exist: a script reading --json could not tell that writes resumed.
func TestDamageRecordSalvageJSON(t *testing.T) {
	type report struct { // the members as a reader of the JSON sees them
		Sound        bool    `json:"sound"`
		Damaged      string  `json:"damaged"`
		DamageRecord *string `json:"damageRecord"`
	}
	salvage := func(dir string) report {
		t.Helper()
		code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("salvage --json: exit %d, %v\n%s%s", code, err, out, stderr)
		}
		return rep
	}
	fate := func(rep report) string {
		if rep.DamageRecord == nil {
			return "(absent)"
		}
		return *rep.DamageRecord
	}

	t.Run("Replaced", func(t *testing.T) {
		dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
		path := filepath.Join(dir, engine.DatabaseFile)
		garblePage(t, path, messageLeaf(t, path))
		if err := store.RecordDamage(path, time.Now(), "database disk image is malformed (11)"); err != nil {
			t.Fatal(err)
		}
		if rep := salvage(dir); rep.Sound || rep.Damaged == "" || fate(rep) != "removed" {
			t.Fatalf("salvage of a damaged file with a record: sound %v, damaged %q, damageRecord %s; want a swap and removed", rep.Sound, rep.Damaged, fate(rep))
		}
	})
	t.Run("Sound", func(t *testing.T) {
		dir, record := recordedDir(t)
		if rep := salvage(dir); !rep.Sound || fate(rep) != "removed" {
			t.Fatalf("salvage of a sound file with a record: sound %v, damageRecord %s; want sound and removed", rep.Sound, fate(rep))
		}
		if _, err := os.Stat(record); !os.IsNotExist(err) {
			t.Fatalf("the record after salvage: %v, want it removed", err)
		}
		if rep := salvage(dir); fate(rep) != "(absent)" {
			t.Fatalf("salvage without a record: damageRecord %s, want it absent", fate(rep))
		}
	})
}

// TestDamageRecordUnreadableCheckJSON: check --json on a mnemo.db that
// cannot be read at all (cut short: unreadableReport) with the record of
// damage beside it says damageRecord remains, action restore (not
// check-full: the file is damaged), ok false, exit 1; without the record
// the member is absent.
func TestDamageRecordUnreadableCheckJSON(t *testing.T) {
	dir, record := recordedDir(t)
	if err := os.Truncate(filepath.Join(dir, engine.DatabaseFile), 4096); err != nil {
		t.Fatal(err)
	}
	type report struct {
		OK           bool    `json:"ok"`
		Action       string  `json:"action"`
		DamageRecord *string `json:"damageRecord"`
	}
	check := func() report {
		t.Helper()
		code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep.OK || rep.Action != "restore" {
			t.Fatalf("check --json of a cut-short mnemo.db: exit %d, %v, %+v; want exit 1, ok false, action restore\n%s%s", code, err, rep, out, stderr)
		}
		return rep
	}
	if rep := check(); rep.DamageRecord == nil || *rep.DamageRecord != "remains" {
		t.Fatalf("with the record: damageRecord %v, want remains", rep.DamageRecord)
	}
	// Removed by hand: the check meets SQLite's "malformed" and records
	// the damage again, so it remains.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	if rep := check(); rep.DamageRecord == nil || *rep.DamageRecord != "remains" {
		t.Fatalf("with the record removed by hand: damageRecord %v, want remains (written again)", rep.DamageRecord)
	}
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("the record after the check met the damage: %v", err)
	}
	// A mnemo.db of 0 bytes beside the indexes: unreadable, and no
	// SQLite error to record; no record, no member.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, engine.DatabaseFile), 0); err != nil {
		t.Fatal(err)
	}
	if rep := check(); rep.DamageRecord != nil {
		t.Fatalf("an empty mnemo.db without a record: damageRecord %q, want it absent", *rep.DamageRecord)
	}
}
