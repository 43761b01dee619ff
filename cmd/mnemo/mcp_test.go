package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio: `mnemo mcp` answers an MCP client on its standard input and
// output (in-process, over pipes): tools listed, append then search gives
// the text back, memory_delete refused without --allow-erase (naming the
// flag, no token: it was titled "The token does not allow this
// operation"), a search naming no resource refused in stdio's words.
func TestMCPStdio(t *testing.T) {
	dir := t.TempDir()
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
	go func() { code <- m.Run(ctx, []string{"--dir", dir, "mcp"}); outW.Close() }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != 6 {
		t.Fatalf("tools: %v %d", err, len(lt.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_append", Arguments: map[string]any{"threadId": "t1", "resourceId": "u1",
		"messages": []map[string]any{{"role": "user", "content": "the spare key is under the blue flowerpot"}}}})
	if err != nil || res.IsError {
		t.Fatalf("append: %v %+v", err, res)
	}
	var text string
	for i := 0; i < 50 && !strings.Contains(text, "flowerpot"); i++ {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "spare key", "resourceId": "u1"}})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		text = string(b)
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(text, "blue flowerpot") {
		t.Fatalf("search result %s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_delete", Arguments: map[string]any{"threadId": "t1"}})
	if err != nil || !res.IsError {
		t.Fatalf("delete without --allow-erase: %v %+v", err, res)
	}
	// stdio has no token file: the refusal says how to allow erasure here.
	if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), "--allow-erase") || strings.Contains(string(b), "token") {
		t.Fatalf("delete refusal over stdio: %s, want it to name --allow-erase, not a token file", b)
	}
	// Nor a token: a search naming no resource says what decides one
	// here (it said "…or the token has one resource").
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "spare key"}})
	if b, _ := json.Marshal(res.Content); err != nil || !res.IsError || !strings.Contains(string(b), "this client may touch every resource (mnemo mcp without --resources)") || strings.Contains(string(b), "token") {
		t.Fatalf("search without resourceId over stdio: %v %s, want it worded for stdio, naming no token", err, b)
	}
	cs.Close()
	inW.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("mnemo mcp exit %d", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mnemo mcp did not exit when its input closed")
	}
}

// TestMCPNodeClient: the official MCP TypeScript SDK (testdata/mcp-node,
// installed by `npm ci` there; .ci/run does it) spawns the mnemo binary
// with `mcp` over stdio, lists the tools, appends, searches and gets the
// text back, reads a memctx resource and is refused an erasure. It skips
// with a message when node or the npm packages are absent, except in CI.
func TestMCPNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	nodeDir, _ := filepath.Abs(filepath.Join("testdata", "mcp-node"))
	_, modErr := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil || modErr != nil {
		msg := "node or the npm packages of testdata/mcp-node are absent (run `npm ci` there)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cmd := exec.Command(node, "client.mjs", buildCLI(t), t.TempDir())
	cmd.Dir = nodeDir
	cmd.Stderr = &strings.Builder{}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\nstderr: %s", err, cmd.Stderr)
	}
	var got struct {
		Tools         []string `json:"tools"`
		Stored        int      `json:"stored"`
		Top           string   `json:"top"`
		Recalled      int      `json:"recalled"`
		MemctxHasHash bool     `json:"memctxHasHash"`
		DeleteRefused bool     `json:"deleteRefused"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client output %q: %v", out, err)
	}
	t.Logf("node client saw: %s", out)
	if len(got.Tools) != 6 || got.Stored != 3 || !strings.Contains(got.Top, "Coimbra") || got.Recalled == 0 || !got.MemctxHasHash || !got.DeleteRefused {
		t.Fatalf("node client saw %+v", got)
	}
}

// TestMCPStdioInputClosed: a client that writes its requests and closes
// standard input at once (`printf ... | mnemo mcp`) gets every request
// answered before mnemo mcp exits — initialize, tools/list and tools/call —
// and the exit status is 0.
func TestMCPStdioInputClosed(t *testing.T) {
	dir := t.TempDir()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"t1","resourceId":"me","messages":[{"role":"user","content":"the spare key is under the blue flowerpot"}]}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	m := &Main{Stdin: strings.NewReader(in), Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c := m.Run(ctx, []string{"--dir", dir, "mcp", "--resources", "me"}); c != 0 {
		t.Fatalf("mnemo mcp exit %d; output %s", c, out.String())
	}
	got := map[int]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if r.Error != nil {
			t.Fatalf("request %d answered with error %s", r.ID, r.Error)
		}
		got[r.ID] = r.Result
	}
	for id, want := range map[int]string{1: `"serverInfo"`, 2: `"memory_append"`, 3: `"stored":1`} {
		if !strings.Contains(string(got[id]), want) {
			t.Errorf("request %d: answer %s, want it to contain %s (all output: %s)", id, got[id], want, out.String())
		}
	}
}
