package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIngestSpoolKilled: a process killed (SIGKILL) while it copies
// standard input to its temporary file leaves nothing in its temporary
// directory. Before, the copy was named in $TMPDIR until the cleanup that
// SIGKILL (or a second signal, or `timeout`) never ran: 4 GB were left.
func TestIngestSpoolKilled(t *testing.T) {
	tmp := t.TempDir()
	cmd := cli(t, t.TempDir(), "ingest", "-")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	// 1 MiB of records, then the pipe stays open: the copy waits for more.
	line := []byte(`{"thread":"t","resource":"r","role":"user","content":"spooled"}` + "\n")
	if _, err := pw.Write(bytes.Repeat(line, (1<<20)/len(line))); err != nil {
		t.Fatalf("write standard input: %v; stderr: %s", err, stderr.String())
	}
	deadline := time.Now().Add(stopBound)
	for !spooling(cmd.Process.Pid, tmp) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no spool file within %s: %s", stopBound, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary directory holds %v after SIGKILL, want nothing", left)
	}
}

// spooling reports whether process pid holds a spool file of dir open
// (named there or unlinked), read from /proc/PID/fd.
func spooling(pid int, dir string) bool {
	fds, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, "mnemo-ingest-")) {
			return true
		}
	}
	return false
}

// TestSpoolDirectoryFull: a write to the copy that fails with ENOSPC
// (/dev/full) says the temporary directory is full, names it ($TMPDIR) and
// how to give it room; errors.Is sees ENOSPC. Before, it was the bare
// "write /tmp/mnemo-ingest-…: no space left on device".
func TestSpoolDirectoryFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	w := &spoolWriter{f: full}
	_, err = w.Write([]byte("x"))
	var we *spoolWriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v (%T), want a *spoolWriteError of ENOSPC", err, err)
	}
	want := "the temporary directory " + dir + " ($TMPDIR) is full: no space left on device after 0 bytes copied to it; set TMPDIR to a directory with room"
	if got := err.Error(); got != want {
		t.Errorf("error\n%q, want\n%q", got, want)
	}
}

// TestSpoolFIFOExtension: a FIFO named *.jsonl is imported as JSONL by its
// name, as a regular file is, though its copy's path (/proc/self/fd/N)
// has no extension: a first line that is not an object is skipped, not
// taken for a JSON array of no format.
func TestSpoolFIFOExtension(t *testing.T) {
	for _, tc := range []struct{ format, name, want string }{
		{"auto", "a.jsonl", "jsonl"},
		{"auto", "a.NDJSON", "jsonl"},
		{"auto", "a.json", "auto"},
		{"locomo", "a.jsonl", "locomo"},
	} {
		if got := spoolFormat(tc.format, tc.name); got != tc.want {
			t.Errorf("spoolFormat(%q, %q) = %q, want %q", tc.format, tc.name, got, tc.want)
		}
	}
}
