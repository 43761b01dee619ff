//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// jsonlOf returns n JSONL records of thread t (resource r), each line the
// same length, and the bytes of one line.
func jsonlOf(n int) (string, int) {
	var b strings.Builder
	line := 0
	for i := range n {
		l := fmt.Sprintf(`{"thread":"t","resource":"r","role":"user","content":"spooled message %06d"}`+"\n", i)
		line = len(l)
		b.WriteString(l)
	}
	return b.String(), line
}

// TestIngestSpoolLimit: standard input, a FIFO or a device that passes
// --max-spool is refused as the copy passes it, naming the flag, with
// nothing of it stored and nothing left in $TMPDIR; a FIFO is refused
// before the data directory is created, and with standard input after a
// FILE, that FILE's messages are stored (as its summary line says) and
// none of standard input's. An input of exactly --max-spool is ingested.
// Before, the copy took whatever came (ingest /dev/zero filled $TMPDIR
// until ENOSPC), and --max-spool did not exist.
func TestIngestSpoolLimit(t *testing.T) {
	body, line := jsonlOf(40_000)     // ~3 MiB
	exact := (16 << 10) / line * line // 200 records
	file := filepath.Join(t.TempDir(), "first.jsonl")
	first, _ := jsonlOf(3)
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(first, `"t"`, `"f"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		args    []string // after ingest; FIFO is replaced by a FIFO fed body
		stdin   string
		code    int
		threads string // thread ids stored, as `mnemo threads --json` lists them
		stderr  string
	}{
		{"Stdin", []string{"--max-spool", "1MiB", "-"}, body, 1, "", "stdin: passes --max-spool 1MiB, the most ingest copies of standard input, a pipe or a device to $TMPDIR: give a larger --max-spool, or save it to a file and ingest the file by its name, which is read in place, not copied (nothing of it was stored)"},
		{"FIFO", []string{"--max-spool", "1048576", "FIFO"}, "", 1, "none", "passes --max-spool 1MiB, the most ingest copies of standard input, a pipe or a device to $TMPDIR: give a larger --max-spool, or save it to a file and ingest the file by its name, which is read in place, not copied (nothing was stored)"},
		{"FileThenStdin", []string{"--max-spool", "1 MiB", file, "-"}, body, 1, `"f"`, "(nothing of it was stored)"},
		{"OneByteMore", []string{"--max-spool", fmt.Sprint(exact), "-"}, body[:exact+1], 1, "", "stdin: passes --max-spool"},
		{"Exactly", []string{"--max-spool", fmt.Sprint(exact), "-"}, body[:exact], 0, `"t"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(t.TempDir(), "data")
			args := append([]string{"--dir", dir, "--embedder", "hash-384", "ingest"}, c.args...)
			produced := make(chan struct{})
			close(produced)
			if i := len(args) - 1; args[i] == "FIFO" {
				args[i] = filepath.Join(t.TempDir(), "conversation.jsonl")
				if err := syscall.Mkfifo(args[i], 0o600); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				produced = make(chan struct{})
				go func(path string) { // the reader goes away: EPIPE, ignored
					defer close(produced)
					if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
						f.WriteString(body)
						f.Close()
					}
				}(args[i])
			}
			var out, errOut bytes.Buffer
			m := &Main{Stdin: strings.NewReader(c.stdin), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
			t.Setenv("TMPDIR", tmp) // os.TempDir
			code := m.Run(context.Background(), args)
			<-produced
			if code != c.code || !strings.Contains(errOut.String(), c.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut.String(), c.code, c.stderr)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("$TMPDIR holds %v, want nothing", left)
			}
			if c.threads == "none" {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Fatalf("data directory: %v, want none created", err)
				}
				return
			}
			_, threads, stderr := run(t, nil, "--dir", dir, "threads", "--json")
			for _, id := range []string{`"t"`, `"f"`} {
				if strings.Contains(threads, `"id": `+id) != strings.Contains(c.threads, id) {
					t.Errorf("threads %s (%s), want only %s", threads, stderr, c.threads)
				}
			}
		})
	}
}

// TestParseByteSize: the sizes --max-spool takes, and flagByteSize's
// spelling of them, which parses back.
func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"1048576", 1 << 20, ""},
		{"1MiB", 1 << 20, ""},
		{"1 mb", 1 << 20, ""},
		{"1.5GiB", 3 << 29, ""},
		{"1.0 GB", 1 << 30, ""},
		{"4k", 4 << 10, ""},
		{"2TiB", 2 << 40, ""},
		{"0", 0, "at least 1 byte"},
		{"0.1", 0, "at least 1 byte"},
		{"-5", 0, "is not a size"},
		{"GiB", 0, "is not a size"},
		{"", 0, "is not a size"},
		{"1..5MiB", 0, "is not a size"},
		{"5XB", 0, "the unit must be one of"},
		{"1e3", 0, "the unit must be one of"},
		{"9999999TiB", 0, "at most 4 EiB"},
		// The bound's own unit is read (it was "the unit must be one of").
		{"4EiB", 1 << 62, ""},
		{"0.5 eib", 1 << 59, ""},
		{"3PiB", 3 << 50, ""},
		{"5EiB", 0, "at most 4 EiB"},
	} {
		got, err := parseByteSize(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
		}
	}
	for n, want := range map[int64]string{DefaultMaxSpool: "1GiB", 512 << 20: "512MiB", 3 << 29: "1536MiB", 1000: "1000", 1 << 10: "1KiB", 1 << 62: "4EiB", 1 << 50: "1PiB"} {
		got := flagByteSize(n)
		back, err := parseByteSize(got)
		if got != want || back != n || err != nil {
			t.Errorf("flagByteSize(%d) = %q (parsed back: %d, %v), want %q", n, got, back, err, want)
		}
	} // "after 1 bytes copied" (a full $TMPDIR) was plural.
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 2: "2 bytes", 1023: "1023 bytes", 1536: "1.5 KB", 1 << 62: "4.0 EB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestIngestPipeOfNoFormat: standard input given first, or a FIFO, of no
// format mnemo reads (with --format auto) fails ingest as a regular FILE
// of no format does (TestIngestUnreadableFile): exit 1, named once on
// standard error, nothing on standard output, no data directory created
// and a good FILE before the FIFO not stored. Before, each created the
// data directory (LOCK, mnemo.db, index/) and then failed, and a good FILE
// before the FIFO was stored (review17).
func TestIngestPipeOfNoFormat(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "m.jsonl")
	if err := os.WriteFile(good, []byte(`{"thread":"t","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string // after ingest; FIFO is replaced by a FIFO fed "garbage"
		stdin string
		want  string
	}{
		{"Stdin", []string{"-"}, "garbage\n", "stdin: unknown format: stdin is neither JSONL nor a JSON array (nothing was stored)"},
		{"StdinEmpty", []string{"--json", "-"}, "", "stdin: unknown format: stdin is empty (nothing was stored)"},
		{"FIFO", []string{"FIFO"}, "", ": unknown format: "},
		{"FileThenFIFO", []string{"--json", good, "FIFO"}, "", ": unknown format: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			args := append([]string{"--dir", dir, "--embedder", "hash-384", "ingest"}, c.args...)
			produced := make(chan struct{})
			close(produced)
			if i := len(args) - 1; args[i] == "FIFO" {
				args[i] = filepath.Join(t.TempDir(), "notes")
				if err := syscall.Mkfifo(args[i], 0o600); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				produced = make(chan struct{})
				go func(path string) {
					defer close(produced)
					if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
						f.WriteString("garbage\n")
						f.Close()
					}
				}(args[i])
				c.want = args[i] + c.want + args[i] + " is neither JSONL nor a JSON array (nothing was stored)"
			}
			var out, errOut bytes.Buffer
			m := &Main{Stdin: strings.NewReader(c.stdin), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
			code := m.Run(context.Background(), args)
			<-produced
			if code != 1 || out.Len() != 0 || errOut.String() != "mnemo ingest: "+c.want+"\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out.String(), errOut.String(), c.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("data directory: %v, want none created", err)
			}
		})
	}
}

// cancelReader gives data once, cancelling its context as it does (a
// signal while standard input is read), then EOF.
type cancelReader struct {
	data   string
	cancel context.CancelFunc
}

func (r *cancelReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, io.EOF
	}
	r.cancel()
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestIngestStdinInterrupted: an ingest of standard input stopped while
// it is read says that nothing was stored and creates no data directory
// (standard input given first is read before the directory is opened).
// With the copy first and no check of the context after it, a read that
// ended at EOF after the signal went on to open the directory, which was
// created, and said "nothing was stored (the data directory was opening)".
func TestIngestStdinInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	line := `{"thread":"t","resource":"r","role":"user","content":"hello"}` + "\n"
	var out, errOut bytes.Buffer
	m := &Main{Stdin: &cancelReader{data: line, cancel: cancel}, Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code := m.Run(ctx, []string{"--dir", dir, "--embedder", "hash-384", "ingest", "-"})
	want := "mnemo ingest: interrupted: nothing was stored (standard input was being read); run the same ingest again\n"
	if code == 0 || out.Len() != 0 || errOut.String() != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want non-zero, nothing, %q", code, out.String(), errOut.String(), want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data directory: %v, want none created", err)
	}
}
