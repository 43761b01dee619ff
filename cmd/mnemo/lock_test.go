package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondProcessRefused: while `mnemo ingest` holds a directory, a
// second `mnemo threads` exits 1 within seconds naming the holder (pid,
// command, since when) and what to do; before, it waited forever in the
// index's file lock, silently. After the holder is killed with SIGKILL,
// the next command takes the lock over and the directory checks clean.
func TestSecondProcessRefused(t *testing.T) {
	file := writeJSONL(t, 60000, nil)
	dir := t.TempDir()
	holder := cli(t, dir, "ingest", file)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	deadline := time.Now().Add(stopBound)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "LOCK"))
		if bytes.Contains(b, []byte(`"mnemo ingest"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ingest did not take the lock within %s", stopBound)
		}
		time.Sleep(20 * time.Millisecond)
	}

	start := time.Now()
	out, err := cli(t, dir, "threads").CombinedOutput()
	took := time.Since(start)
	if err == nil {
		t.Fatalf("threads on a held directory succeeded:\n%s", out)
	}
	for _, want := range []string{fmt.Sprintf("process %d", holder.Process.Pid), "(mnemo ingest)", "since", "kill", "retry"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The CLI waits 1 s for the lock; the rest is starting a process on a
	// loaded machine.
	if took > 10*time.Second {
		t.Errorf("refused after %s", took)
	}
	t.Logf("refused after %s: %s", took.Round(time.Millisecond), bytes.TrimSpace(out))

	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	if out, err := cli(t, dir, "threads").CombinedOutput(); err != nil {
		t.Fatalf("threads after the holder was killed: %v\n%s", err, out)
	}
	if out, err := cli(t, dir, "check").CombinedOutput(); err != nil {
		t.Fatalf("check after the holder was killed: %v\n%s", err, out)
	}
}
