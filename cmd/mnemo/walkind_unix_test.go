//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestWALNotFileAdvice: a mnemo.db-wal or mnemo.db-shm that is a pipe, a directory or a
// symbolic link gets advice that fits it — mnemo.db is not at fault, move
// the -wal aside and run the command again — from every command, check
// and salvage included. It got the advice for a mnemo.db that holds no
// database ("restore mnemo.db from a backup"), or a link SQLite's bare
// "unable to open database file (14)".
func TestWALNotFileAdvice(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, log string)
	}{
		{"pipe", "is a pipe", func(t *testing.T, log string) {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"directory", "is a directory", func(t *testing.T, log string) {
			if err := os.Mkdir(log, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"link", "is a symbolic link (to /nowhere/log)", func(t *testing.T, log string) {
			if err := os.Symlink("/nowhere/log", log); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, suffix := range []string{"-wal", "-shm"} {
			t.Run(tc.name+suffix, func(t *testing.T) { notFileAdvice(t, suffix, tc.want, tc.make) })
		}
	}
}

// notFileAdvice makes mnemo.db's file suffix (-wal or -shm) with mk and
// checks what threads, check and salvage say (TestWALNotFileAdvice).
func notFileAdvice(t *testing.T, suffix, want string, mk func(t *testing.T, log string)) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	log := filepath.Join(dir, engine.DatabaseFile+suffix)
	if err := os.Remove(log); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	mk(t, log)
	for _, cmd := range []string{"threads", "check", "salvage"} {
		code, _, stderr := run(t, nil, "--dir", dir, cmd)
		// A -shm's error names the index first, not the log (it began
		// "the write-ahead log is not a regular file").
		blamesLog := strings.Contains(stderr, "the write-ahead log is not a regular file")
		if code != 1 || !strings.Contains(stderr, log+" "+want) || !strings.Contains(stderr, "move "+engine.DatabaseFile+suffix+" aside") || strings.Contains(stderr, "backup") ||
			blamesLog != (suffix == "-wal") {
			t.Fatalf("%s: code %d, stderr %s", cmd, code, stderr)
		}
	}
}
