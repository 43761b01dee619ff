package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBackupWhileServed: `mnemo backup DEST`, run as its own process while
// `mnemo serve` holds the directory and a client appends without pause,
// writes a directory that checks ok, holds every thread's acknowledged
// messages up to some point with no gap, carries mnemo.json and answers a
// search, and the server goes on serving.
func TestBackupWhileServed(t *testing.T) {
	// The CLI is built before the client starts: built inside cli() below
	// (when no earlier test built it), the appends went on for the whole
	// build, minutes on a cold cache, and the backup then copied them all.
	buildCLI(t)
	dir := filepath.Join(t.TempDir(), "data")
	cfg := filepath.Join(t.TempDir(), "mnemo-config.json")
	os.WriteFile(cfg, []byte(`{"recentN": 4}`), 0o600)
	url, stderr, stop := startServe(t, dir, "--config", cfg)
	var acked atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
				"messages": []map[string]any{{"role": "user", "content": fmt.Sprintf("the night train to porto, turn %d", n)}}})
			if status != 200 {
				t.Errorf("append %d: %d %s", n, status, body)
				return
			}
			acked.Add(1)
		}
	}()
	for acked.Load() < 20 && !t.Failed() {
		runtime.Gosched()
	}
	before := acked.Load()
	dest := filepath.Join(t.TempDir(), "backup")
	out, err := cli(t, dir, "backup", dest).CombinedOutput()
	after := acked.Load()
	close(done)
	wg.Wait()
	if err != nil || !strings.Contains(string(out), "backed up") {
		t.Fatalf("mnemo backup while served: %v\n%s", err, out)
	}
	if status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
		"messages": []map[string]any{{"role": "user", "content": "still served"}}}); status != 200 {
		t.Fatalf("append after the backup: %d %s", status, body)
	}
	if c := stop(); c != 0 {
		t.Fatalf("serve exit %d: %s", c, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(dest, StoredConfigFile)); err != nil || string(b) == "" {
		t.Errorf("the backup's %s: %q, %v", StoredConfigFile, b, err)
	}
	if code, out, errOut := run(t, nil, "--dir", dest, "check"); code != 0 {
		t.Fatalf("check of the backup: exit %d %s %s", code, out, errOut)
	}
	code, out2, errOut := run(t, nil, "--dir", dest, "messages", "--thread", "t1", "--json")
	if code != 0 {
		t.Fatalf("messages of the backup: exit %d %s", code, errOut)
	}
	var msgs []struct{ Seq int64 }
	if err := json.Unmarshal([]byte(out2), &msgs); err != nil {
		t.Fatal(err)
	}
	if n := int64(len(msgs)); n < before || n > after {
		t.Errorf("the backup holds %d messages, want %d..%d (acknowledged before and after it)", n, before, after)
	}
	for i, m := range msgs {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has seq %d (a gap)", i, m.Seq)
		}
	}
	if code, out, errOut := run(t, nil, "--dir", dest, "search", "--resource", "r1", "porto"); code != 0 || !strings.Contains(out, "porto") {
		t.Errorf("search of the backup: exit %d %s %s", code, out, errOut)
	}
}

// TestBackupRefusals: a DEST that exists and is not empty, no DEST, and
// --db are refused, and nothing is written.
func TestBackupRefusals(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep"), []byte("mine"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"Exists", []string{"--dir", dir, "backup", full}, 1, "is a directory that is not empty (it holds keep); a backup never overwrites"},
		{"NoDest", []string{"--dir", dir, "backup"}, 2, "needs one DEST, a directory that does not exist yet"},
		{"Postgres", []string{"--db", "postgres://localhost/x", "backup", filepath.Join(full, "x")}, 1, "pg_dump"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d %q; want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	if ents, _ := os.ReadDir(full); len(ents) != 1 {
		t.Errorf("the refused DEST holds %d entries, want its 1", len(ents))
	}
}

// TestBackupRemovesStaleStaging: mnemo backup removes the staging
// directory a killed backup left beside its destination (its lock file,
// mnemo-backup.lock, held by no process) and says so on standard error;
// --json names it in removedStaging. (engine's TestBackupKilledStaging
// kills a real backup; here the directory is made as one leaves it.)
func TestBackupRemovesStaleStaging(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock: stale staging directories are not removed")
	}
	dir := t.TempDir()
	newDataDir(t, dir)
	parent := t.TempDir()
	stale := func(name string) string {
		t.Helper()
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"mnemo-backup.lock", "mnemo.db"} {
			if err := os.WriteFile(filepath.Join(p, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	first := stale(".old.backup-1")
	code, out, stderr := run(t, nil, "--dir", dir, "backup", filepath.Join(parent, "b1"))
	if _, err := os.Lstat(first); code != 0 || err == nil ||
		!strings.Contains(stderr, "removed the staging directory of a backup killed before it finished, beside "+filepath.Join(parent, "b1")+": .old.backup-1\n") {
		t.Fatalf("backup: exit %d, %s left (%v)\n%s%s", code, first, err, out, stderr)
	}
	second := stale(".old.backup-2")
	code, out, stderr = run(t, nil, "--dir", dir, "backup", "--json", filepath.Join(parent, "b2"))
	var res struct {
		RemovedStaging []string `json:"removedStaging"`
	}
	if _, err := os.Lstat(second); code != 0 || err == nil || json.Unmarshal([]byte(out), &res) != nil ||
		fmt.Sprint(res.RemovedStaging) != "[.old.backup-2]" {
		t.Fatalf("backup --json: exit %d, %s left (%v)\n%s%s", code, second, err, out, stderr)
	}
}

// TestBackupAdviceQuotesDest: the check the backup suggests runs as
// printed when DEST's path holds a blank (readme55: 'mnemo --dir
// /tmp/my backup check' ran backup on /tmp/my). It is run as printed, by
// a shell.
func TestBackupAdviceQuotesDest(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	dest := filepath.Join(t.TempDir(), "my backup")
	code, _, errOut := run(t, nil, "--dir", dir, "backup", dest)
	if code != 0 {
		t.Fatalf("backup: exit %d %q", code, errOut)
	}
	want := "mnemo --dir " + shellWord(dest) + " check"
	if !strings.Contains(errOut, want) {
		t.Fatalf("backup's advice %q does not hold %q", errOut, want)
	}
	out, err := exec.Command("sh", "-c", "set -- "+want+`; for w; do printf '%s\n' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, []string{"mnemo", "--dir", dest, "check"}) {
		t.Errorf("the shell reads the advice's command as %q, want mnemo --dir %q check", got, dest)
	}
}
