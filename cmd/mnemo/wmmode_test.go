package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestWMModeChange is walk39 #2's repro: a resource's state set in schema
// mode, then mnemo.json's workingMemory changed to a template. Every
// context, wm get and wm set of the resource failed (exit 1, "stored
// state has another mode"). Now the context shows the JSON state as it
// is, with a note in its record; wm get prints it and notes the modes;
// wm set of a markdown document replaces it as version 2; the history
// lists both versions in their own modes, and the next context renders
// the markdown.
func TestWMModeChange(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "today", ResourceID: "ana", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("prof.schema.json", `{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"}},"additionalProperties":false}`)
	write("mnemo.json", `{"workingMemory":{"schemaFile":"prof.schema.json","scope":"resource"}}`)
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"name":"Ana","city":"Lyon"}`), 0o600)
	if code, out, errOut := run(t, env, "--dir", dir, "wm", "set", "--resource", "ana", state); code != 0 {
		t.Fatalf("wm set in schema mode: exit %d %s %s", code, out, errOut)
	}
	write("mnemo.json", `{"workingMemory":{"template":"# User\n- Name:\n","scope":"resource"}}`)

	code, out, errOut := run(t, env, "--dir", dir, "context", "--thread", "today", "--json")
	var c struct {
		System string          `json:"system"`
		MemCtx json.RawMessage `json:"memctx"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("context after the mode change: exit %d %s %s", code, out, errOut)
	}
	if !strings.Contains(c.System, `"city": "Lyon"`) || !strings.Contains(c.System, `mode="schema"`) || !strings.Contains(c.System, "as a markdown document") {
		t.Errorf("context's system part lacks the schema state under the template memory:\n%s", c.System)
	}
	var rec struct {
		Note string `json:"workingMemoryNote"`
	}
	if json.Unmarshal(c.MemCtx, &rec); rec.Note != "written in schema mode, shown in a template-mode working memory" {
		t.Errorf("memctx lacks the note: %s", c.MemCtx)
	}

	code, out, errOut = run(t, env, "--dir", dir, "wm", "get", "--resource", "ana")
	if code != 0 || !strings.Contains(out, "schema mode  version 1") || !strings.Contains(errOut, "written in schema mode and the working memory is in template mode now") {
		t.Fatalf("wm get after the mode change: exit %d\n%s\n%s", code, out, errOut)
	}
	md := filepath.Join(t.TempDir(), "state.md")
	os.WriteFile(md, []byte("# User\n- Name: Ana\n- City: Lyon\n"), 0o600)
	code, out, errOut = run(t, env, "--dir", dir, "wm", "set", "--resource", "ana", md)
	if code != 0 || !strings.Contains(errOut, "resource:ana is now version 2") || !strings.Contains(out, "template mode  version 2") {
		t.Fatalf("wm set of markdown after the mode change: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, env, "--dir", dir, "wm", "history", "--resource", "ana", "--json")
	var h []struct {
		Mode    string          `json:"mode"`
		Version int64           `json:"version"`
		Content json.RawMessage `json:"content"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || len(h) != 2 || h[0].Mode != "template" || h[1].Mode != "schema" || !jsonEqual(h[1].Content, `{"city":"Lyon","name":"Ana"}`) {
		t.Fatalf("wm history: exit %d\n%s\n%s", code, out, errOut)
	}
	// The text listing gives each version's mode too: it mixes a JSON
	// and a markdown state.
	code, out, errOut = run(t, env, "--dir", dir, "wm", "history", "--resource", "ana")
	if code != 0 || !strings.Contains(out, "version 2  template mode  ") || !strings.Contains(out, "version 1  schema mode  ") {
		t.Fatalf("wm history (text): exit %d, want each version's mode\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, env, "--dir", dir, "context", "--thread", "today", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || !strings.Contains(c.System, "- City: Lyon") || strings.Contains(c.System, `mode="schema"`) || strings.Contains(string(c.MemCtx), "workingMemoryNote") {
		t.Fatalf("context after wm set: exit %d %s %s", code, out, errOut)
	}
}

// jsonEqual reports whether a and b are the same JSON text but for blanks.
func jsonEqual(a json.RawMessage, b string) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, []byte(b)) == nil && x.String() == y.String()
}
