package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPResourceOutside: mnemo mcp --resources me answers a tool call
// naming another resource, stored or not, by saying the resource is
// outside --resources and how to reach it; the resource it was given
// works. Before, it answered "Not found: resource not found: \"other\""
// for a resource the user could see stored (cli56).
func TestMCPResourceOutside(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"me","role":"user","content":"the garden needs water"}
{"thread":"o1","resource":"other","role":"user","content":"the garden is dry"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	msgs := []map[string]any{{"role": "user", "content": "hello"}}
	flags := []string{"--resources", "me,me2"}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // "": the call succeeds
	}{
		{"memory_append", map[string]any{"resourceId": "other", "threadId": "o1", "messages": msgs}, `resource "other" is outside this client's resources (mnemo mcp --resources me,me2): start mnemo mcp with it in --resources, or without --resources for every resource`},
		{"memory_append", map[string]any{"resourceId": "newres", "threadId": "n1", "messages": msgs}, `resource "newres" is outside this client's resources (mnemo mcp --resources me,me2)`},
		{"memory_search", map[string]any{"resourceId": "other", "query": "garden"}, `resource "other" is outside this client's resources`},
		{"memory_context", map[string]any{"resourceId": "other", "threadId": "o2"}, `resource "other" is outside this client's resources`},
		{"memory_append", map[string]any{"resourceId": "me", "threadId": "t1", "messages": msgs}, ""},
	} {
		res := mcpCallWith(t, dir, flags, c.tool, c.args)
		var text string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if c.want == "" && res.IsError || c.want != "" && (!res.IsError || !strings.Contains(text, c.want) || strings.Contains(text, "not found")) {
			t.Errorf("%s %v: error %v, %q; want %q", c.tool, c.args, res.IsError, text, c.want)
		}
	}
}
