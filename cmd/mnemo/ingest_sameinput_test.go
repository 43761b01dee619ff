//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIngestSameInputTwice: two FILEs that are the same file that can be
// read only once (here standard input, a pipe, also named /dev/fd/N or
// /proc/self/fd/N) are a usage error naming both, before the data
// directory is created or anything read; before, the first read took the
// whole pipe and the second failed as an empty FILE of no format (exit 1).
// It is a value error: its line and the help hint, not the whole usage
// (which ccda68b keeps for errors of the command line's shape); a FIFO
// named twice by one name says so ("the pipe F is named twice", not "F
// and F are the same pipe").
// A regular file named twice, by another name too (a hard link), is
// imported twice, the second time storing nothing.
func TestIngestSameInputTwice(t *testing.T) {
	const line = `{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}` + "\n"
	// N stands for the pipe's descriptor.
	for _, c := range []struct{ args, want string }{
		{"- /dev/fd/N", "- (standard input) and /dev/fd/N are the same pipe"},
		{"/proc/self/fd/N -", "/proc/self/fd/N and - (standard input) are the same pipe"},
		{"/dev/fd/N /proc/self/fd/N", "/dev/fd/N and /proc/self/fd/N are the same pipe"},
		{"/dev/fd/N /dev/fd/N", "the pipe /dev/fd/N is named twice"},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(line) // and closed: a read that is not refused ends
		w.Close()
		fd := fmt.Sprint(r.Fd())
		args := strings.Fields(strings.ReplaceAll(c.args, "N", fd))
		want := "mnemo ingest: " + strings.ReplaceAll(c.want, "N", fd) + ": it can be read once, so name it once"
		dir := filepath.Join(t.TempDir(), "data")
		var out, errOut strings.Builder
		m := &Main{Stdin: r, Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return "hash-384" // as run's: no model is loaded if the refusal fails
			}
			return ""
		}}
		code := m.Run(context.Background(), append([]string{"--dir", dir, "ingest"}, args...))
		r.Close()
		if want += "\nRun 'mnemo help ingest' for the flags.\n"; code != 2 || out.String() != "" || errOut.String() != want {
			t.Errorf("ingest %s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q", strings.Join(args, " "), code, out.String(), errOut.String(), want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("ingest %s: the data directory was created (%v)", strings.Join(args, " "), err)
		}
	}
	t.Run("FIFONamedTwice", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "in.jsonl")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		code, out, stderr := run(t, nil, "--dir", filepath.Join(t.TempDir(), "data"), "ingest", fifo, fifo)
		want := "mnemo ingest: the pipe " + fifo + " is named twice: it can be read once, so name it once\nRun 'mnemo help ingest' for the flags.\n"
		if code != 2 || out != "" || stderr != want {
			t.Errorf("ingest F F of a FIFO: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, want)
		}
	})
	t.Run("RegularFile", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "c.jsonl")
		os.WriteFile(file, []byte(line), 0o600)
		link := filepath.Join(t.TempDir(), "same.jsonl")
		if err := os.Link(file, link); err != nil {
			t.Skipf("link: %v", err)
		}
		code, out, stderr := run(t, nil, "--dir", t.TempDir(), "ingest", file, link)
		if want := "total: 2 resources, 2 threads, 1 message stored, 1 already stored, 0 skipped\n"; code != 0 || !strings.HasSuffix(out, want) {
			t.Errorf("ingest FILE LINK: exit %d, out %q (%s); want it to end %q", code, out, stderr, want)
		}
	})
}
