package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json")

// TestToolsGolden: the tools' names, descriptions and input and output
// schemas, as a client lists them, are the reviewed ones in
// testdata/tools.golden.json (go test ./mcpserver/ -run TestToolsGolden
// -update rewrites it after a deliberate change).
func TestToolsGolden(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(lt.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("tool definitions changed; review and run with -update:\n%s", got)
	}
}

// TestToolsNameNoToken: the tools' descriptions, which /mcp and mnemo mcp
// over stdio share, say "the client" where they said "the token" ("may be
// left out when … the token has one resource", "Refused unless the token
// allows erasure"): over stdio there is no token, and the client's
// resources and erasure are mnemo mcp's --resources and --allow-erase.
func TestToolsNameNoToken(t *testing.T) {
	bearerToken := regexp.MustCompile(`(?i)\btoken\b`)
	e := openEngine(t)
	alice, _, _ := principals(t)
	lt, err := connect(t, e, alice).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if loc := bearerToken.FindIndex(b); loc != nil { // "tokens", of a budget, are the model's
			t.Errorf("tool %s says %q", tool.Name, b[max(loc[0]-60, 0):min(loc[1]+40, len(b))])
		}
	}
}
