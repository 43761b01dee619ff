package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServedOnlySettingsWarn: a stored mnemo.json whose setting only mnemo
// serve uses is refused (server.requestTimeout below 1s, accepted before
// c47c20b; a negative server.maxBodyBytes; a negative
// lifecycle.sweepEvery) lets every other command run, the recovery
// commands first: check, salvage, threads and mcp exit 0 with one warning
// on stderr naming the field; mnemo serve still refuses to start naming
// it. Before, every command exited 1 ("stored configuration: …
// server.requestTimeout: "1ns" is below 1s").
func TestServedOnlySettingsWarn(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello world"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for field, conf := range map[string]string{
		`server.requestTimeout: "1ns" is below 1s`:                  `{"server":{"requestTimeout":"1ns"}}`,
		`server.requestTimeout: "999ms" is below 1s`:                `{"server":{"requestTimeout":"999ms"}}`,
		"server.maxBodyBytes must be >= 0 (0: the default), got -1": `{"server":{"maxBodyBytes":-1}}`,
		`lifecycle.sweepEvery: must be a non-negative Go duration`:  `{"lifecycle":{"sweepEvery":"-1m"}}`,
	} {
		dir := filepath.Join(t.TempDir(), "data")
		if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
			t.Fatalf("ingest: exit %d: %s", code, stderr)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"check", "salvage", "threads", "mcp"} {
			code, _, stderr := run(t, nil, "--dir", dir, cmd)
			if code != 0 || strings.Count(stderr, field) != 1 || !strings.Contains(stderr, "mnemo "+cmd+": warning: ") ||
				!strings.Contains(stderr, "only mnemo serve uses it") {
				t.Errorf("%s with %s: exit %d, stderr %q; want 0 and one warning naming %q", cmd, conf, code, stderr, field)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var errBuf strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errBuf, Getenv: func(string) string { return "" }}
		code := m.Run(ctx, []string{"--dir", dir, "serve", "--listen", "127.0.0.1:0"})
		cancel()
		if errOut := errBuf.String(); code != 1 || !strings.Contains(errOut, "mnemo serve: stored configuration: ") || !strings.Contains(errOut, field) {
			t.Errorf("serve with %s: exit %d, %q; want 1 naming %q", conf, code, errOut, field)
		}
	}
}
