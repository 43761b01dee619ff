package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestQuarantineSaid: a one-shot command whose engine quarantined the
// lexical index (here at Open, a garbage root.bolt as in
// TestCheckDamageFoundAtOpen: the same EventQuarantined as a damaged
// segment a search reads) says so on stderr: what, where the copy went,
// that the index is rebuilt from mnemo.db, that nothing is lost. And
// mnemo check, finding the rebuild's backlog, says it is the rebuild's
// rather than "a process stopped … or an outage". Before (walk30), the
// search exited 0 with stderr empty and check blamed a stopped process.
func TestQuarantineSaid(t *testing.T) {
	var reqs []engine.AppendRequest
	for batch := range 2 {
		var msgs []engine.Message
		for i := range 1000 {
			msgs = append(msgs, engine.Message{Role: "user", Content: fmt.Sprintf("turn %d: the refund of order %d was approved", i, batch*1000+i)})
		}
		reqs = append(reqs, inThreadT(msgs...))
	}
	dir := storedDir(t, engine.Config{}, true, reqs...)
	damageRoot := func() {
		root := filepath.Join(dir, engine.LexicalDir, "store", "root.bolt")
		if err := os.WriteFile(root, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	damageRoot()
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "refund approved")
	if code != 0 || !strings.Contains(out, "refund") {
		t.Fatalf("search: exit %d\n%s%s", code, out, stderr)
	}
	quarantine := filepath.Join(dir, engine.QuarantineDir)
	for _, want := range []string{"mnemo search: warning: the lexical index was found damaged", quarantine, "rebuilt from " + engine.DatabaseFile, "nothing is lost", "to finish it now, run: mnemo --dir " + dir + " check\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("search's stderr lacks %q:\n%s", want, stderr)
		}
	}

	// check meets the damage at its own Open: its rebuild's backlog.
	damageRoot()
	code, _, stderr = run(t, nil, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, "indexing ") {
		t.Fatalf("check: exit %d, want 1 (damage found) and the backlog said:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the rebuild from "+engine.DatabaseFile+" of the lexical index") || strings.Contains(stderr, "a process stopped") {
		t.Errorf("check does not say the backlog is the rebuild's:\n%s", stderr)
	}
	if strings.Contains(stderr, "mnemo check: warning: the lexical index") {
		t.Errorf("check says the quarantine twice (its finding and a warning):\n%s", stderr)
	}
}

// TestBacklogCause: a backlog whose oldest row was queued within
// rebuildQueueWindow after a lexical quarantine is its rebuild's; one
// queued long after it, or before it, or with no quarantine, is not.
func TestBacklogCause(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 5, 6, 0, 0, 123456789, time.UTC)
	if err := os.MkdirAll(filepath.Join(dir, engine.QuarantineDir, at.Format(quarantineStamp), "lexical"), 0o700); err != nil {
		t.Fatal(err)
	}
	now := at.Add(time.Hour)
	for _, tc := range []struct {
		oldest  time.Time
		rebuild bool
	}{
		{at.Add(time.Millisecond), true},
		{at.Truncate(time.Millisecond), true},
		{at.Add(30 * time.Minute), false},
		{at.Add(-time.Hour / 2), false},
	} {
		got := backlogCause(dir, engine.Stats{OutboxPending: 500, IndexLag: now.Sub(tc.oldest)}, now, nil)
		if strings.Contains(got, "rebuild") != tc.rebuild || (!tc.rebuild && !strings.Contains(got, "a process stopped")) {
			t.Errorf("oldest row %s after the quarantine: %q", tc.oldest.Sub(at), got)
		}
	}
	if got := backlogCause(t.TempDir(), engine.Stats{OutboxPending: 500, IndexLag: time.Second}, now, nil); !strings.Contains(got, "a process stopped") {
		t.Errorf("no quarantine: %q", got)
	}
	// Postgres (no data directory): never the working directory's quarantine.
	t.Chdir(dir)
	if got := backlogCause("", engine.Stats{OutboxPending: 500, IndexLag: now.Sub(at)}, now, nil); !strings.Contains(got, "a process stopped") {
		t.Errorf("Postgres: %q", got)
	}
}

// TestQuarantineSaidByRead: a command that only reads (readsOnly: its
// engine runs no outbox drainer, engine.Config.KeepOutbox) and whose open
// quarantined the lexical index says that it leaves the rebuild to the
// next command that writes or searches (rev48, after a482c9fd). Before,
// mnemo threads said "each command gets the rebuild a batch (512
// messages) or more further before it exits", which it no longer does.
// A command that drains (search) still says so.
func TestQuarantineSaidByRead(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true, inThreadT(engine.Message{Role: "user", Content: "the refund was approved"}))
	root := filepath.Join(dir, engine.LexicalDir, "store", "root.bolt")
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"threads"}, "mnemo threads only reads: it leaves the rebuild to the next command that writes or searches", "each command gets"},
		{[]string{"export"}, "mnemo export only reads: it leaves the rebuild", "each command gets"},
		{[]string{"search", "--resource", "r", "refund"}, "each command gets the rebuild a batch", "only reads"},
	} {
		if err := os.WriteFile(root, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, tc.args...)...)
		if code != 0 || !strings.Contains(stderr, "warning: the lexical index was found damaged") {
			t.Fatalf("%v: exit %d, want 0 and the quarantine said\n%s%s", tc.args, code, out, stderr)
		}
		if !strings.Contains(stderr, tc.want) || strings.Contains(stderr, tc.not) || !strings.Contains(stderr, "to finish it now, run: mnemo --dir "+dir+" check\n") {
			t.Errorf("%v: stderr says %q, want %q and not %q", tc.args, stderr, tc.want, tc.not)
		}
	}
}
