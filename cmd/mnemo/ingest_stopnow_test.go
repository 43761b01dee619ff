package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIngestStoppedAtOnce: a second signal stops ingest at once (exit
// 130), and its last line says how many messages it stored, committed,
// and that running it again stores the rest. Before, the process exited
// with no word of what was stored (readme59): the user could not tell
// whether the file's messages were in.
func TestIngestStoppedAtOnce(t *testing.T) {
	file := writeJSONL(t, 60000, nil)
	dir := t.TempDir()
	cmd := cli(t, dir, "ingest", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(stopBound)
	for storedMessages(dir) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("ingest did not start storing within %s: %s", stopBound, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Two signals back to back: SIGTERM after SIGINT (two SIGINTs sent
	// together may arrive as one).
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(stopBound):
		cmd.Process.Kill()
		t.Fatalf("still running %s after two signals", stopBound)
	}
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", got, stderr.String())
	}
	m := regexp.MustCompile(`(?m)^mnemo ingest: stopped at once: ([0-9]+) messages? stored by this ingest, committed: they stay \(.*\); run the same ingest again to store the rest \(.*\); some stored messages may have no embedding yet \(.*\): that ingest run again, or mnemo --dir ` + regexp.QuoteMeta(dir) + ` check, embeds them`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("stderr lacks what was stored:\n%s", stderr.String())
	}
	said, _ := strconv.Atoi(m[1])
	// Every message counted is committed; one whose commit had not
	// returned yet may be stored too.
	if stored := storedMessages(dir); said == 0 || said > stored {
		t.Errorf("said %d messages stored, the database holds %d:\n%s", said, stored, stderr.String())
	}
	if strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("stderr says context canceled:\n%s", stderr.String())
	}
}
