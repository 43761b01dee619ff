package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// TestServeRestartKeepsConfig: `mnemo serve` started again without
// --config uses the configuration the first --config stored (it used the
// engine defaults: recentN 10, recall off), and working memory too.
func TestServeRestartKeepsConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := filepath.Join(t.TempDir(), "mnemo-config.json")
	os.WriteFile(cfg, []byte(`{"recentN": 1, "recall": {"topK": 3}, "workingMemory": {"template": "# Notes\n", "scope": "resource"}}`), 0o600)
	url, stderr, stop := startServe(t, dir, "--config", cfg)
	if status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}); status != 200 {
		t.Fatalf("append: %d %s", status, body)
	}
	if c := stop(); c != 0 {
		t.Fatalf("serve exit %d: %s", c, stderr.String())
	}
	url, stderr, stop = startServe(t, dir)
	defer stop()
	status, body := post(t, url+"/v1/context", "", map[string]any{"threadId": "t1"})
	var c struct {
		System string `json:"system"`
		MemCtx struct {
			Options struct {
				RecentN int `json:"recentN"`
				TopK    int `json:"topK"`
			} `json:"options"`
		} `json:"memctx"`
	}
	if err := json.Unmarshal(body, &c); status != 200 || err != nil {
		t.Fatalf("context: %d %v %s", status, err, body)
	}
	if c.MemCtx.Options.RecentN != 1 || c.MemCtx.Options.TopK != 3 || !strings.Contains(c.System, "# Notes") {
		t.Fatalf("serve without --config after one: options %+v, system %q; want recentN 1, topK 3 and the template", c.MemCtx.Options, c.System)
	}
}

// TestLibraryWorkingMemoryReachesCLI: an application that configures
// working memory in Go (engine.Config.WorkingMemory) and the CLI on its
// directory render and validate it alike: mnemo context shows the state,
// mnemo wm set refuses what the application's schema refuses, without
// --schema. Before, the CLI had no working memory for such a directory.
func TestLibraryWorkingMemoryReachesCLI(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	schema := `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"additionalProperties":false}`
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, WorkingMemory: &working.Config{Schema: json.RawMessage(schema)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r1", Messages: []engine.Message{{Role: engine.RoleUser, Content: "I am Ana"}}}); err != nil {
		t.Fatal(err)
	}
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Merge(ctx, working.ThreadKey("t1"), json.RawMessage(`{"name":"Ana"}`), working.Origin{RunID: "app"}); err != nil {
		t.Fatal(err)
	}
	want, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", RunID: "app-run"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	code, out, errOut := run(t, env, "--dir", dir, "context", "--thread", "t1", "--json")
	var got struct {
		System string `json:"system"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.System != want.System {
		t.Fatalf("mnemo context: exit %d %s %s\nsystem %q\nwant   %q", code, out, errOut, got.System, want.System)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"name":"Ana","age":"old"}`), 0o600)
	code, _, errOut = run(t, env, "--dir", dir, "wm", "set", "--thread", "t1", bad)
	if code == 0 || !strings.Contains(errOut, "age") {
		t.Fatalf("wm set of a state the application's schema refuses: exit %d %q", code, errOut)
	}
}

// TestServeWarnsOpenTokenFile: a token file other users may read is named
// in a warning with the chmod that closes it; a 0600 one is not.
func TestServeWarnsOpenTokenFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes")
	}
	for _, mode := range []os.FileMode{0o644, 0o600} {
		tokens := filepath.Join(t.TempDir(), "tokens.json")
		os.WriteFile(tokens, []byte(`{"tokens":[{"name":"app","token":"app-secret-1","resources":["r1"]}]}`), mode)
		os.Chmod(tokens, mode)
		_, stderr, stop := startServe(t, filepath.Join(t.TempDir(), "data"), "--tokens", tokens)
		if c := stop(); c != 0 {
			t.Fatalf("serve exit %d: %s", c, stderr.String())
		}
		warned := strings.Contains(stderr.String(), "chmod 600 "+tokens)
		if warned != (mode == 0o644) {
			t.Errorf("token file mode %04o: warned %v; stderr:\n%s", mode, warned, stderr.String())
		}
	}
}
