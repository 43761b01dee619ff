package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBadConfigLeavesDir: a --config that mnemo serve refuses leaves
// the data directory as it was: a directory that did not exist is not
// created, an empty one stays empty (before: serve.lock was left in a new
// directory, and a working-memory schema refused after the engine opened
// left a new database too).
func TestServeBadConfigLeavesDir(t *testing.T) {
	cfgDir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(cfgDir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("bad.schema.json", `{"type": "nonsense"}`)
	configs := map[string]string{
		"syntax":   write("syntax.json", `{"recentN": `),
		"unknown":  write("unknown.json", `{"recentN": 3, "bogus": 1}`),
		"negative": write("negative.json", `{"limits": {"maxContentBytes": -1}}`),
		"recall":   write("recall.json", `{"recall": {"topK": 5000}}`),
		"schema":   write("schema.json", `{"workingMemory": {"schemaFile": "bad.schema.json"}}`),
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			fresh := filepath.Join(parent, "new")
			code, _, errOut := run(t, nil, "--dir", fresh, "serve", "--listen", "127.0.0.1:0", "--config", cfg)
			if code == 0 {
				t.Fatalf("serve accepted %s: %s", name, errOut)
			}
			if _, err := os.Stat(fresh); !os.IsNotExist(err) {
				ents, _ := os.ReadDir(fresh)
				t.Errorf("a new directory: after the refusal (%s) it exists (%v), holding %v", strings.TrimSpace(errOut), err, names(ents))
			}
			empty := t.TempDir()
			run(t, nil, "--dir", empty, "serve", "--listen", "127.0.0.1:0", "--config", cfg)
			if ents, _ := os.ReadDir(empty); len(ents) != 0 {
				t.Errorf("an empty directory: after the refusal it holds %v", names(ents))
			}
		})
	}
}

func names(ents []os.DirEntry) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestServeFailedOpenLeavesNoLock: a serve whose engine does not open (a
// mnemo.db that is not a database) leaves no serve.lock behind.
func TestServeFailedOpenLeavesNoLock(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mnemo.db"), []byte("not a database, not at all, not even close to one"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, nil, "--dir", dir, "serve", "--listen", "127.0.0.1:0")
	if code == 0 {
		t.Fatalf("serve opened a garbage database: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ServeLockFile)); err == nil {
		ents, _ := os.ReadDir(dir)
		t.Fatalf("after the refusal (%.80s…) the directory holds %v: serve.lock left behind", strings.TrimSpace(errOut), names(ents))
	}
}

// TestStoredConfigBadSaysWhatToDo: a stored mnemo.json that cannot be read
// or breaks a rule fails every command that opens the directory, mnemo serve
// (without --config) included, with exit 1 and the advice on what to do
// (before, serve said only "configuration DIR/mnemo.json: …", the rule
// broken, where threads and context said what to do). A refused setting
// only serve uses fails serve alone.
func TestStoredConfigBadSaysWhatToDo(t *testing.T) {
	stored := map[string]string{
		"syntax": `{"recentN": `,
		"rule":   `{"recall": {"topK": -3}}`,
		"server": `{"server": {"requestTimeout": "-1s"}}`,
	}
	commands := map[string][]string{
		"serve":   {"serve", "--listen", "127.0.0.1:0"},
		"threads": {"threads"},
		"context": {"context", "--thread", "t0"},
	}
	for name, body := range stored {
		dir := t.TempDir()
		if code, _, errOut := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for cname, args := range commands {
			if name == "server" && cname != "serve" {
				continue // a setting only serve uses: the others warn (TestServedOnlySettingsWarn)
			}
			code, _, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
			if code != 1 || !strings.Contains(errOut, "stored configuration") || !strings.Contains(errOut, "What to do: mnemo.json is the configuration") {
				t.Errorf("%s with a stored mnemo.json (%s): exit %d, %q; want 1 saying what to do", cname, name, code, errOut)
			}
		}
	}
}
