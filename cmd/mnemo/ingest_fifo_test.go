//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIngestFIFO: a FILE that is a FIFO (mkfifo; a producer writing into
// it) is ingested whole, with or without --format. Before, ingest's check
// that every FILE can be read opened the FIFO and closed it: the producer,
// which had opened it for that reader, got EPIPE, and the import then
// opened it again and waited for a writer that never came. The producer
// here opens the FIFO once more after an error and closes it, so that the
// import sees an empty file rather than hanging: the test fails on the
// messages missing.
func TestIngestFIFO(t *testing.T) {
	var body strings.Builder
	const n = 2000 // ~100 KB: more than a pipe holds, so the producer is still writing when a reader goes away
	for i := range n {
		fmt.Fprintf(&body, `{"thread":"t","resource":"r","role":"user","content":"message %d through a FIFO"}`+"\n", i)
	}
	for _, format := range []string{"auto", "jsonl"} {
		fifo := filepath.Join(t.TempDir(), "conversation")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		produced := make(chan error, 1)
		go func() { produced <- produce(fifo, body.String()) }()
		dir := filepath.Join(t.TempDir(), "data")
		code, out, stderr := run(t, nil, "--dir", dir, "ingest", "--format", format, "--json", fifo)
		if err := <-produced; err != nil {
			t.Errorf("--format %s: the producer: %v", format, err)
		}
		if code != 0 || !strings.Contains(out, fmt.Sprintf(`"messages":%d,`, n)) {
			t.Errorf("--format %s: ingest of a FIFO: exit %d, %s %s; want %d messages", format, code, out, stderr, n)
		}
	}
}

// produce writes body into the FIFO path as a producer does (open, write,
// close). When the write fails (the reader went away), it opens the FIFO
// again and closes it, giving the next reader an end of file, and returns
// the error.
func produce(path, body string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(body)
	f.Close()
	if err != nil {
		if again, err2 := os.OpenFile(path, os.O_WRONLY, 0); err2 == nil {
			again.Close()
		}
	}
	return err
}
