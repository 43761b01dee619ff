package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPWorkingMemoryOff: mnemo mcp without working memory answers
// working_memory_get with the route that turns it on for mnemo mcp, which
// takes no --config: the data directory's mnemo.json, by its absolute
// path, and a restart; following it works. It told a desktop user to
// start mnemo serve with --config (readme48).
func TestMCPWorkingMemoryOff(t *testing.T) {
	dir := t.TempDir()
	res := mcpCall(t, dir, "working_memory_get", map[string]any{"resourceId": "u1"})
	b, _ := json.Marshal(res.Content)
	text := string(b)
	path, _ := json.Marshal(filepath.Join(dir, StoredConfigFile))
	if !res.IsError || !strings.Contains(text, string(path[1:len(path)-1])) || !strings.Contains(text, "restart mnemo mcp") || strings.Contains(text, "serve --config") {
		t.Fatalf("working_memory_get without working memory: %s; want an error naming %s and the restart, not mnemo serve --config", text, path)
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"workingMemory": {"template": "# User\n- Name:\n", "scope": "resource"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res = mcpCall(t, dir, "working_memory_get", map[string]any{"resourceId": "u1"})
	if b, _ := json.Marshal(res.Content); res.IsError || !strings.Contains(string(b), "# User") {
		t.Fatalf("working_memory_get after writing mnemo.json and restarting: %s; want the template", b)
	}
}

// mcpCall starts mnemo mcp on dir over pipes, calls the tool once and
// stops it, failing t when mcp does not exit 0.
func mcpCall(t *testing.T, dir, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return mcpCallWith(t, dir, nil, tool, args)
}

// mcpCallWith is mcpCall with mnemo mcp's flags.
func mcpCallWith(t *testing.T, dir string, flags []string, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &Main{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, append([]string{"--dir", dir, "mcp"}, flags...)); outW.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	cs.Close()
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("mnemo mcp exit %d", c)
	}
	return res
}
