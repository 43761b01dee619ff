//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSchemaFileFIFO: a workingMemory.schemaFile that is a FIFO nobody
// writes into is refused at once, naming it, by mnemo check (which then
// runs with the defaults) and by any other command; a pipe with a writer,
// as <(…) gives (/dev/fd/N), is still read. Before (walk39 #9), opening
// the FIFO waited for a writer forever: every command hung, check
// included. The watchdog only ends a hung command (it opens the FIFO for
// writing, which releases the open), then the test fails.
func TestSchemaFileFIFO(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	dir := t.TempDir()
	if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"workingMemory": {"schemaFile": "fifo"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "workingMemory.schemaFile: " + fifo + " is a pipe that gave nothing to read"
	for _, args := range [][]string{{"check"}, {"threads"}} {
		code, out, errOut := runUnhung(t, fifo, append([]string{"--dir", dir}, args...)...)
		if code != 1 || !strings.Contains(out+errOut, want) {
			t.Errorf("%s with a FIFO as schemaFile: exit %d, %q %q; want 1 naming %q", args[0], code, out, errOut, want)
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString(`{"type": "object", "properties": {"city": {"type": "string"}}}`)
		w.Close()
	}()
	state := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(state, []byte(`{"city": "Lyon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("/dev/fd/%d", r.Fd())
	code, out, errOut := runUnhung(t, schema, "--dir", t.TempDir(), "wm", "set", "--resource", "ana", "--schema", schema, state)
	if code != 0 {
		t.Errorf("wm set --schema %s (a pipe with a writer): exit %d, %q %q; want 0", schema, code, out, errOut)
	}
}

// runUnhung runs args as run does; if they have not returned after a
// minute (they wait to open the FIFO path), it fails the test and opens
// path for writing until they return, which ends each wait.
func runUnhung(t *testing.T, path string, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := run(t, map[string]string{"MNEMO_EMBEDDER": "hash-384"}, args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(time.Minute):
	}
	t.Errorf("mnemo %s waited a minute for a writer of %s", strings.Join(args, " "), path)
	for {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // each open of the FIFO by the command waits for one
		}
		select {
		case r := <-done:
			return r.code, r.out, r.err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
