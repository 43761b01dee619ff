package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmptySchemaFile: a workingMemory.schemaFile of 0 bytes (or blanks
// only) is refused naming the member and the file, in a data directory's
// mnemo.json and in serve --config FILE alike. Before (walk39 #5), it
// was read as no schema: the working memory was a template one, in
// silence (exit 0, a markdown working memory), where an empty inline
// schema ({}) was refused.
func TestEmptySchemaFile(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	for _, body := range []string{"", " \n\t\n"} {
		dir := t.TempDir()
		if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
		cfgDir := t.TempDir()
		for _, d := range []string{dir, cfgDir} {
			if err := os.WriteFile(filepath.Join(d, "empty.json"), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		const cfg = `{"workingMemory": {"schemaFile": "empty.json"}}`
		serveCfg := filepath.Join(cfgDir, "cfg.json")
		if err := os.WriteFile(serveCfg, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		code, errOut := runFor(t, 10*time.Second, "--dir", dir, "serve", "--config", serveCfg, "--listen", "127.0.0.1:0")
		want := "workingMemory.schemaFile: " + filepath.Join(cfgDir, "empty.json") + " is empty"
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("serve --config with an empty schemaFile %q: exit %d, %q; want 1 naming %q", body, code, errOut, want)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, env, "--dir", dir, "context", "--thread", "t0")
		want = "workingMemory.schemaFile: " + filepath.Join(dir, "empty.json") + " is empty"
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("context with an empty schemaFile %q in mnemo.json: exit %d, %q %q; want 1 naming %q", body, code, out, errOut, want)
		}
	}
}
