package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
)

// nullableKeys are the --json keys whose null is a value, not a missing
// array: a hit's scores, null where the hit is a range neighbour or the
// retriever did not find it.
var nullableKeys = map[string]bool{"score": true, "lexicalScore": true, "vectorScore": true}

// TestJSONNoNull: no --json output holds null where a JSON consumer reads
// an array or an object: a list with nothing in it is [] (as the HTTP API
// answers). Each command runs where its answer is empty, the case a nil Go
// slice becomes null in: `mnemo delete --json` printed "messages": null
// when nothing was erased, and `mnemo observe --json` "Observations": null
// (under Go's field names). Every document of the output is walked (a
// --queries search prints one per line), and its names checked as
// TestJSONNames checks them.
func TestJSONNoNull(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	lines := `{"id":"q1","resource":"ana","query":"zzzqqq nothing matches"}` + "\n" + `{"id":"q2","resource":"ana","thread":"ana:garden","query":"tomatoes"}` + "\n"
	if err := os.WriteFile(queries, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(`{"observations":[]}`).Response, nil
	}))
	model := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"ingest", "--json", filepath.Join("..", "..", "demodata", "conversation.jsonl")}},
		{nil, []string{"threads", "--resource", "nobody", "--json"}},
		{nil, []string{"messages", "--thread", "ana:today", "--from", "99", "--json"}},
		{nil, []string{"context", "--thread", "ana:today", "--run-id", "run-1", "--recent", "-1", "--json"}},
		{nil, []string{"context", "--thread", "ana:today", "--run-id", "run-2", "--top-k", "3", "--json"}},
		{nil, []string{"search", "--resource", "ana", "--json", "zzzqqq nothing matches"}},
		{nil, []string{"search", "--resource", "ana", "--range", "1", "--json", "Porto train"}},
		{nil, []string{"search", "--queries", queries, "--range", "1"}},
		{nil, []string{"runs", "--thread", "ana:garden", "--json"}},
		{nil, []string{"memctx", "run-1", "--json"}},
		{nil, []string{"replay", "run-2", "--without", "recalled", "--json"}},
		{nil, []string{"observations", "--thread", "ana:today", "--all", "--json"}},
		{model, []string{"observe", "--thread", "ana:today", "--force", "--json"}},
		{nil, []string{"wm", "get", "--thread", "ana:today", "--json"}},
		{nil, []string{"wm", "history", "--thread", "ana:today", "--json"}},
		{nil, []string{"expire", "--idle", "10000h", "--dry-run", "--json"}},
		{nil, []string{"vacuum", "--json"}},
		{nil, []string{"delete", "--resource", "nobody", "--yes", "--json"}},
		{nil, []string{"delete", "--message", "no-such-message", "--yes", "--json"}},
		{nil, []string{"delete", "--message", "today-1,today-2,today-3", "--yes", "--json"}},
		{nil, []string{"delete", "--thread", "ana:today", "--yes", "--json"}}, // stored, its messages erased above
		{nil, []string{"check", "--json"}},
		{nil, []string{"version", "--json"}},
	} {
		code, out, stderr := run(t, c.env, append([]string{"--dir", dir}, c.args...)...)
		if code != 0 && !strings.Contains(stderr, "no message found") {
			t.Errorf("mnemo %q: exit %d: %s", c.args, code, stderr)
			continue
		}
		if out == "" {
			t.Errorf("mnemo %q: printed nothing", c.args)
		}
		docs, err := jsonDocs(out)
		if err != nil {
			t.Fatalf("mnemo %q: not JSON: %v\n%s", c.args, err, out)
		}
		for _, v := range docs {
			for _, p := range nullPaths(v, "") {
				t.Errorf("mnemo %q: %s is null, want [] or a value:\n%s", c.args, p, out)
			}
			checkNames(t, c.args[0], "", v) // and camelCase, as TestJSONNames
		}
	}
}

// nullPaths returns the paths (".messages", ".hits[].x") of the nulls in v,
// but for nullableKeys.
func nullPaths(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case nil:
		return []string{path}
	case map[string]any:
		for k, child := range x {
			if child == nil && nullableKeys[k] {
				continue
			}
			out = append(out, nullPaths(child, path+"."+k)...)
		}
	case []any:
		for _, child := range x {
			out = append(out, nullPaths(child, path+"[]")...)
		}
	}
	return out
}

// TestJSONContract pins what docs/cli.md's "--json and exit codes" and `mnemo
// help` promise a script: with --json, standard output holds JSON or
// nothing, whatever the exit status; errors are text on standard error,
// beginning "mnemo COMMAND"; exit 2 (a usage error) prints nothing on
// standard output, exit 1 prints nothing either, but for the commands that
// report what they did before failing (ingest, delete, ...).
func TestJSONContract(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"thread":"t","resource":"r","role":"user","content":"x"}`+"\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		code   int
		report bool // exit 1 with what was done on standard output
	}{
		{[]string{"threads", "--json"}, 0, false},
		{[]string{"threads", "--bogus", "--json"}, 2, false},
		{[]string{"context", "--thread", "ana:today", "--top-k", "5000", "--json"}, 2, false},
		{[]string{"search", "--resource", "", "--json", "q"}, 2, false},
		{[]string{"delete", "--thread", "ana:today", "--json"}, 2, false}, // no --yes, no terminal
		{[]string{"messages", "--thread", "nope", "--json"}, 1, false},
		{[]string{"context", "--thread", "nope", "--json"}, 1, false},
		{[]string{"memctx", "nope", "--json"}, 1, false},
		{[]string{"delete", "--message", "nope", "--yes", "--json"}, 1, true},
		{[]string{"ingest", "--strict", "--json", bad}, 1, true},
		{[]string{"ingest", "--json", bad + ".missing"}, 1, false}, // nothing began: no report
		{[]string{"check", "--json"}, 0, false},
		{[]string{"check", "--json", "extra"}, 2, false},
		{[]string{"version", "--json"}, 0, false},
		{[]string{"version", "--bogus", "--json"}, 2, false},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		switch {
		case code != c.code:
			t.Errorf("mnemo %q: exit %d, want %d: %s", c.args, code, c.code, stderr)
		case code != 0 && !strings.HasPrefix(stderr, "mnemo "+c.args[0]):
			t.Errorf("mnemo %q: standard error %q does not begin with the command", c.args, stderr)
		case code != 0 && (out != "") != c.report:
			t.Errorf("mnemo %q: exit %d with standard output %q", c.args, code, out)
		}
		if _, err := jsonDocs(out); err != nil {
			t.Errorf("mnemo %q: standard output is not JSON:\n%s", c.args, out)
		}
	}
	if _, out, _ := run(t, nil, "help"); !strings.Contains(out, "Exit status: 0 done, 1 failed, 2 usage error") {
		t.Errorf("mnemo help does not give the exit statuses:\n%s", out)
	}
}

// jsonDocs returns the JSON documents s holds one after the other (none
// when s is empty), or an error when anything else is in s.
func jsonDocs(s string) ([]any, error) {
	var docs []any
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return docs, err
		}
		docs = append(docs, v)
	}
}

// TestCheckVersionJSON: check and version take --json like the other
// commands: one JSON document on standard output. check's says ok, the
// problems (none: []), what to do ("none") and the rest as lists; a
// damaged directory's report is pinned by the TestCheckDamaged* tests.
// version's names the version, Go version and platform the text line
// gives. Before, both refused --json as an unknown flag.
func TestCheckVersionJSON(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--json"}, `{"ok":true,"full":false,"action":"none","problems":[],"databaseCapped":false,"rebuiltIndexes":[],"deletedSnapshots":[],"reembedding":[],"knownLosses":[],"keptDamaged":[],"strayLogs":[],"dotIds":[],"reservedIds":[]}`},
		{[]string{"check", "--full", "--json"}, `{"ok":true,"full":true,"action":"none","problems":[],"databaseCapped":false,"rebuiltIndexes":[],"deletedSnapshots":[],"reembedding":[],"knownLosses":[],"keptDamaged":[],"strayLogs":[],"dotIds":[],"reservedIds":[]}`},
		{[]string{"version", "--json"}, fmt.Sprintf(`{"version":%q,"go":%q,"os":%q,"arch":%q}`, version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(out)); code != 0 || err != nil || compact.String() != c.want {
			t.Errorf("mnemo %q: exit %d, %v, stdout\n%s\nstderr %s\nwant %s", c.args, code, err, out, stderr, c.want)
		}
	}
}
