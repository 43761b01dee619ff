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
