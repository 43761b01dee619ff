//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProgressBarEscapesName: ingest's progress bar, drawn on a terminal
// with the writer under termSafe (its own carriage returns must reach the
// terminal), names the FILE escaped as the rest of standard error is: a
// name holding an escape sequence or a bidirectional override drove the
// terminal from the bar's description ("storing evil\x1b[31mred.jsonl"
// turned the terminal red), while the summary line escaped it.
func TestProgressBarEscapesName(t *testing.T) {
	ptmx, pts := openPTY(t)
	name := filepath.Join(t.TempDir(), "evil\x1b[31mred\u202efdp.jsonl")
	src := writeJSONL(t, 9000, func(int) string { return " " + strings.Repeat("padding ", 60) })
	if err := os.Rename(src, name); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() { _, _ = io.Copy(&screen, ptmx); close(read) }()
	var out bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: pts, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	code := m.Run(context.Background(), []string{"--dir", t.TempDir(), "ingest", name})
	pts.Close()
	<-read
	if code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, screen.String())
	}
	if !strings.Contains(screen.String(), "storing ") {
		t.Fatalf("no progress bar on the terminal:\n%q", screen.String())
	}
	for _, raw := range []string{"\x1b[31m", "\u202e"} {
		if strings.Contains(screen.String(), raw) {
			t.Errorf("the terminal got %q raw from the file's name:\n%q", raw, screen.String())
		}
	}
	if !strings.Contains(screen.String(), `evil\u001b[31mred\u202efdp.jsonl`) {
		t.Errorf("the bar does not name the file escaped:\n%q", screen.String())
	}
}

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx), or skips: the
// master, which reads what is written to the terminal, and the terminal.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("the pseudo-terminal's number: %v", err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	return ptmx, pts
}
