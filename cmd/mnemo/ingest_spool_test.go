package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// endless is standard input that does not end (`yes |`): it cancels its
// context once it has given after bytes, then counts what is read past
// that, up to limit bytes in all (then io.EOF, so that a copy that does
// not stop ends).
type endless struct {
	cancel             context.CancelFunc
	after, limit, read int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.limit {
		return 0, io.EOF
	}
	p = p[:min(len(p), e.limit-e.read)]
	for i := range p {
		p[i] = 'y'
	}
	e.read += len(p)
	if e.read >= e.after {
		e.cancel()
	}
	return len(p), nil
}

// TestIngestSpoolStops: an ingest of an endless standard input stopped by
// SIGINT or SIGTERM (its context cancelled) stops copying it at once and
// removes the copy. Before, the copy went on to the end of the input (of
// /dev/zero, until the grace period ended the process, leaving gigabytes
// in the temporary directory).
func TestIngestSpoolStops(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &endless{cancel: cancel, after: 1 << 20, limit: 64 << 20}
	var out, errOut bytes.Buffer
	m := &Main{Stdin: in, Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- m.Run(ctx, []string{"--dir", t.TempDir(), "--embedder", "hash-384", "ingest", "-"}) }()
	code := <-done
	if past := in.read - in.after; code == 0 || past > 1<<20 {
		t.Errorf("exit %d, %d bytes read after the cancel, want an error and at most 1 MiB: %s", code, past, errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupted") || !strings.Contains(errOut.String(), "stored") {
		t.Errorf("stderr %q, want it to say it was interrupted and what was stored", errOut.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary directory holds %v, want nothing", left)
	}
}
