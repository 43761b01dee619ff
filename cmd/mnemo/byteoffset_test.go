package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// atByte finds "at byte N" in a message.
var atByte = regexp.MustCompile(`at byte (\d+)`)

// TestByteOffsetsOneConvention: every message that names a place in a
// JSON text ("at byte N") counts N from 0, the offset of the byte at
// fault, whichever path read the text: an HTTP request body, a token
// file, /mcp of mnemo serve, a line of mnemo mcp over stdio, mnemo.json
// (--config), a LoCoMo file of mnemo ingest and the template
// working-memory tool's arguments. Each fault (a bad character, data after
// the value, a byte that is not UTF-8, nesting too deep) is fed to each
// path that names its place, and N must be the offset of the same byte.
// Before, the HTTP API's "malformed JSON at byte N" counted from 1
// (encoding/json's SyntaxError.Offset) where the rest counted from 0, and
// the working-memory tool's offsets were of its trimmed arguments.
func TestByteOffsetsOneConvention(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# User\n", Scope: working.ScopeThread}})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r1", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Mount: map[string]func(*server.Principal) http.Handler{
		"/mcp": mcpserver.Handler(e, mcpserver.Options{}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	post := func(path string) func(t *testing.T, in []byte) string {
		return func(t *testing.T, in []byte) string {
			resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(string(in)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
	}
	file := func(name string, read func(path string) error) func(t *testing.T, in []byte) string {
		return func(t *testing.T, in []byte) string {
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, in, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := read(p); err != nil {
				return err.Error()
			}
			return ""
		}
	}
	seed, err := os.ReadFile("../../importer/testdata/seed/locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]struct {
		valid string // a valid text of the path, "%" where a fault goes into it (in a string or after the value)
		read  func(t *testing.T, in []byte) string
	}{
		"HTTPBody":  {`{"resourceId":"r1","query":"q%"}`, post("/v1/search")},
		"MCPBody":   {`{"jsonrpc":"2.0","id":1,"method":"ping","x":"%"}`, post("/mcp")},
		"MCPStdio":  {`{"jsonrpc":"2.0","id":1,"method":"ping","x":"%"}`, func(_ *testing.T, in []byte) string { return string(badLine(in)) }},
		"TokenFile": {`{"tokens":[{"token":"abcdefghij%","resources":["a"]}]}`, func(_ *testing.T, in []byte) string { _, err := server.ParseTokens(in); return errText(err) }},
		"Config":    {`{"recentN":3,"observe":{"model":"m%"}}`, file("mnemo.json", func(p string) error { _, err := readMemoryConfig(p); return err })},
		"LoCoMo": {strings.TrimSpace(string(seed)) + "%", file("in.json", func(p string) error {
			_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Format: importer.FormatLoCoMo})
			return err
		})},
		"WorkingMemoryTool": {" \n " + `{"memory":"x%"}`, func(t *testing.T, in []byte) string {
			m, err := e.HandleToolCall(ctx, "run-"+strconv.Itoa(len(in)), "t1", "", openai.ToolCall{ID: "c1", Type: "function",
				Function: openai.FunctionCall{Name: tools.UpdateWorkingMemoryName, Arguments: string(in)}})
			if err != nil {
				t.Fatal(err)
			}
			return m.Content
		}},
	}
	faults := []struct {
		name  string
		paths []string // the paths that name its place
		// at builds the faulty text from a path's valid text, returning it
		// and the offset of the byte at fault.
		at func(valid string) ([]byte, int)
	}{
		{"BadCharacter", []string{"HTTPBody", "TokenFile", "Config"}, func(v string) ([]byte, int) {
			i := strings.Index(v, "%") + 1 // after the string's closing quote
			return []byte(v[:i-1] + v[i:i+1] + "#" + v[i+1:]), i
		}},
		{"TrailingData", []string{"HTTPBody", "MCPBody", "MCPStdio", "TokenFile", "Config", "LoCoMo", "WorkingMemoryTool"}, func(v string) ([]byte, int) {
			v = strings.Replace(v, "%", "", 1)
			return []byte(v + "}"), len(v)
		}},
		{"NotUTF8", []string{"HTTPBody", "MCPBody", "MCPStdio", "TokenFile", "Config"}, func(v string) ([]byte, int) {
			i := strings.Index(v, "%")
			return []byte(v[:i] + "\xff" + v[i+1:]), i
		}},
		{"TooDeep", []string{"HTTPBody"}, func(v string) ([]byte, int) {
			i := strings.Index(v, "%") + 1
			v = v[:i-1] + v[i:i+1] + "," + `"deep":` + strings.Repeat("[", jsonDepthHTTP+1) + v[i+1:]
			return []byte(v), i + 1 + len(`"deep":`) + jsonDepthHTTP - 1 // the object is level 1
		}},
		{"TooDeepMCP", []string{"MCPBody", "MCPStdio"}, func(v string) ([]byte, int) {
			i := strings.Index(v, "%") + 1
			v = v[:i-1] + v[i:i+1] + "," + `"deep":` + strings.Repeat("[", mcpserver.MaxDepth+1) + v[i+1:]
			return []byte(v), i + 1 + len(`"deep":`) + mcpserver.MaxDepth - 1
		}},
	}
	for _, f := range faults {
		for _, name := range f.paths {
			t.Run(f.name+"/"+name, func(t *testing.T) {
				p := paths[name]
				in, want := f.at(p.valid)
				msg := p.read(t, in)
				m := atByte.FindStringSubmatch(msg)
				if m == nil {
					t.Fatalf("%.300q names no byte", msg)
				}
				if n, _ := strconv.Atoi(m[1]); n != want {
					t.Fatalf("%.300q names byte %d, want %d (%q, counted from 0)", msg, n, want, in[want])
				}
			})
		}
	}
}

// jsonDepthHTTP is the deepest nesting a request body may have
// (encoding/json's).
const jsonDepthHTTP = 10000

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
