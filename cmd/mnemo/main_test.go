package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// run runs mnemo in-process and returns the exit code, stdout and stderr.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "MNEMO_EMBEDDER" {
			return "hash-384" // tests' figures must not depend on the models installed here
		}
		return ""
	}
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: getenv}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// sharedData returns the path of a file under ../shared/data (or under
// $MNEMO_SHARED_DATA, for a checkout elsewhere), or skips.
func sharedData(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "data", rel)
	if d := os.Getenv("MNEMO_SHARED_DATA"); d != "" {
		p = filepath.Join(d, rel)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("benchmark data %s not present (%v); skipping", rel, err)
	}
	return p
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	for _, args := range [][]string{
		{},
		{"nope"},
		{"--dir", dir, "ingest"},
		{"--dir", dir, "ingest", "--format", "csv", "x"},
		{"--dir", dir, "context"},
		{"--dir", dir, "context", "--thread", "t", "--top-k", "3", "--range", "x"},
		{"--dir", dir, "messages"},
		{"--dir", dir, "memctx"},
		{"--dir", dir, "threads", "--bogus"},
		{"--dir", dir, "context", "--thread", "t", "--resource", "r", "--top-k", "1000000000"},
		{"--dir", dir, "context", "--thread", "t", "--resource", "r", "--top-k", "3", "--fusion", "bogus"},
		{"--dir", dir, "context", "--thread", "t", "--resource", "r", "--run-id", "bad id"},
		{"--dir", dir, "context", "--thread", "t", "--budget", "-1"},
		{"--dir", dir, "runs", "--limit", "-1"},
		{"--dir", dir, "runs", "--thread", "a", "--resource", "b"},
		{"--dir", dir, "messages", "--thread", "t", "--from", "10", "--to", "2"},
		{"--dir", dir, "search", "--resource", "r", "--scope", "thread", "q"},
		{"--dir", dir, "search", "--resource", "r", "--scope", "bogus", "q"},
		{"--dir", dir, "search", "--resource", "r", " "},
		{"--dir", dir, "memctx", "r1", "--json", "--html", filepath.Join(dir, "r1.html")},
		{"--dir", dir, "eval", "--embedder", "bogus", "x.json"},
		// A tuning weight that is not a finite number (NaN made every
		// fused score NaN: LoCoMo hybrid any@1 0.411 -> 0.043, silently).
		{"--dir", dir, "eval", "--speaker-weight", "NaN", "x.json"},
		{"--dir", dir, "eval", "--session-weight", "Inf", "x.json"},
		{"--dir", dir, "eval", "--vector-weight", "-Inf", "x.json"},
		{"--dir", dir, "eval", "--topic-weight", "nan", "x.json"},
		{"--dir", dir, "eval", "--context-weight", "+Inf", "x.json"},
		{"--dir", dir, "eval", "--date-weight", "NaN", "x.json"},
	} {
		code, _, stderr := run(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "usage") && !strings.Contains(stderr, "' for the flags.") {
			t.Errorf("mnemo %v: exit %d, stderr %q; want 2 and a usage hint", args, code, stderr)
		}
	}
}

// TestBadEmbedderAndDir: an unknown --embedder (or $MNEMO_EMBEDDER) is a
// usage error (exit 2) before anything is opened, and a --dir that is a
// file is engine.ErrNotDataDir (exit 1) saying so, not a failure to read
// FILE/mnemo.json; the hint after it fits the command (ingest was told a
// directory is created by writing to it, by ingest).
func TestBadEmbedderAndDir(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	for _, env := range []map[string]string{nil, {"MNEMO_EMBEDDER": "bogus"}} {
		args := []string{"--dir", dir, "threads"}
		if env == nil {
			args = append([]string{"--embedder", "bogus"}, args...)
		}
		code, _, stderr := run(t, env, args...)
		if code != 2 || !strings.Contains(stderr, `unknown embedder "bogus"`) {
			t.Errorf("mnemo %v (env %v): exit %d, stderr %q; want 2 and unknown embedder", args, env, code, stderr)
		}
	}
	file := filepath.Join(t.TempDir(), "notadir")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// ingest's FILE must be one it reads: its format is checked first.
	conv := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(conv, []byte(`{"thread":"t","resource":"r","role":"user","content":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		hint string // a read says how a directory comes to be; a write, what --dir must name
	}{
		{[]string{"threads"}, "a data directory is created by writing to it"},
		{[]string{"ingest", conv}, "it must name a directory, or a path where one can be created"},
	} {
		code, _, stderr := run(t, nil, append([]string{"--dir", file}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, "not a mnemo data directory") || !strings.Contains(stderr, "is a file, not a directory") || !strings.Contains(stderr, tc.hint) {
			t.Errorf("mnemo --dir FILE %v: exit %d, stderr %q; want 1, not a data directory and %q", tc.args, code, stderr, tc.hint)
		}
	}
}

// TestReadInvalidIDs: a read command given an id that breaks the id rule
// (here "a/b") is a usage error naming the flag (exit 2), as docs/cli.md
// says, not an empty listing (exit 0) or "not found" (exit 1), in the
// API's words: the rule and what the id broke.
func TestReadInvalidIDs(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"threads", "--resource", "a/b"}, "--resource"},
		{[]string{"messages", "--thread", "a/b"}, "--thread"},
		{[]string{"search", "--resource", "a/b", "q"}, "--resource"},
		{[]string{"search", "--resource", "r", "--thread", "a b", "q"}, "--thread"},
		{[]string{"runs", "--thread", "a/b"}, "--thread"},
		{[]string{"runs", "--resource", "a/b"}, "--resource"},
		{[]string{"replay", "a/b"}, "RUN_ID"},
		{[]string{"memctx", "a/b"}, "RUN_ID"},
		{[]string{"wm", "get", "--thread", "a/b"}, "--thread"},
		{[]string{"wm", "history", "--resource", "a/b"}, "--resource"},
		{[]string{"observations", "--thread", "a/b"}, "--thread"},
		{[]string{"observations", "--resource", "a/b"}, "--resource"},
		{[]string{"observe", "--thread", "a/b"}, "--thread"},
		{[]string{"delete", "--thread", "a/b", "--yes"}, "--thread"},
		{[]string{"delete", "--message", "ok,a/b", "--yes"}, "--message"},
	} {
		code, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, tc.args...)...)
		// The API's form of an id refusal (engine.IDRule, engine.IDFault):
		// it said `--thread "a/b" is not a valid id: it must be …`, not
		// what the id broke.
		broke := `"/" at byte 1` // of "a/b"; of "a b", " "
		if slices.Contains(tc.args, "a b") {
			broke = `" " at byte 1`
		}
		want := tc.flag + " must be 1-128 characters of [A-Za-z0-9_.:@-]; got " + broke
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("mnemo %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, want)
		}
		if stdout != "" {
			t.Errorf("mnemo %v printed %q on standard output", tc.args, stdout)
		}
	}
}

// TestDemo: mnemo demo ingests the sample (secrets redacted), loads a
// context with recall and prints its memctx, then replays the run without
// its recalled turns; the README's "Two commands" line says all of it (it
// left the replay out).
func TestDemo(t *testing.T) {
	code, out, stderr := run(t, nil, "demo")
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, stderr)
	}
	for _, want := range []string{"4 threads, 26 messages", "[REDACTED]", "memctx", "promptHash: sha256:", "3. Counterfactual replay of run demo-run-1 without the recalled turns"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-demo-") {
		t.Error("demo printed an unredacted key")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(string(readme), "go run ./cmd/mnemo demo")
	line, _, _ = strings.Cut(line, "\n")
	for _, step := range []string{"ingest a sample conversation", "load a context with recall", "memctx", "replay it without the recalled turns"} {
		if !strings.Contains(line, step) {
			t.Errorf("README's demo line %q does not say %q", line, step)
		}
	}
}

func TestLoCoMoIngestAndContext(t *testing.T) {
	file := sharedData(t, "locomo/locomo10-dev.json")
	env := map[string]string{"MNEMO_DIR": t.TempDir()}
	code, out, stderr := run(t, env, "ingest", "--format", "locomo", "--json", file)
	if code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	var rep struct{ Resources, Threads, Messages, Skipped int }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Resources != 5 || rep.Threads != 128 || rep.Messages != 2760 {
		t.Fatalf("ingest stored %+v, want 5 resources, 128 threads, 2760 messages", rep)
	}
	code, out, stderr = run(t, env, "context", "--thread", "conv-26:session_19", "--resource", "conv-26", "--recent", "10", "--run-id", "lc-1", "--json")
	if code != 0 {
		t.Fatalf("context exit %d: %s", code, stderr)
	}
	var c struct {
		Messages []struct {
			MessageID string `json:"messageId"`
			Seq       int64  `json:"seq"`
		} `json:"messages"`
		MemCtx struct {
			RunID       string `json:"runId"`
			RecentCount int    `json:"recentCount"`
		} `json:"memctx"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range c.Messages {
		ids = append(ids, strings.TrimPrefix(m.MessageID, "conv-26:"))
	}
	if got, want := strings.Join(ids, " "), "D19:6 D19:7 D19:8 D19:9 D19:10 D19:11 D19:12 D19:13 D19:14 D19:15"; got != want {
		t.Fatalf("context turns %s, want %s", got, want)
	}
	if c.MemCtx.RecentCount != 10 || c.MemCtx.RunID != "lc-1" {
		t.Fatalf("memctx %+v", c.MemCtx)
	}
	code, out, _ = run(t, env, "memctx", "lc-1", "--json")
	if code != 0 || !strings.Contains(out, `"recentCount":10`) {
		t.Fatalf("memctx exit %d: %s", code, out)
	}
}

func TestRecallFlagsCheckedWithRecallOff(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range [][]string{{"--fusion", "bogus"}, {"--threshold", "NaN"}, {"--mode", "bogus"}, {"--range", "21"}} {
		args := append([]string{"--dir", dir, "context", "--thread", "t", "--resource", "r"}, bad...)
		if code, _, stderr := run(t, nil, args...); code != 2 {
			t.Errorf("%v without --top-k: exit %d (%s), want 2", bad, code, stderr)
		}
	}
}

// newDataDir makes dir a data directory holding no messages yet.
func newDataDir(t *testing.T, dir string) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIngestStdinNames: `mnemo ingest -` calls its input "stdin" in the
// summary, the skipped records and --json (file and format), never by the
// temporary file standard input is spooled to.
func TestIngestStdinNames(t *testing.T) {
	dir := t.TempDir()
	in := `{"thread":"t","resource":"r","role":"user","content":"hi"}
{"thread":"t","resource":"r","role":"bogus","content":"x"}
`
	code, stdout, stderr := runStdin(t, in, "--dir", dir, "--embedder", "hash-384", "ingest", "--json", "-")
	if code != exitSkipped { // stored but for the skipped record
		t.Fatalf("ingest - exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "skipped: stdin line 2: invalid role") || strings.Contains(stderr, "mnemo-ingest-") {
		t.Errorf("stderr %q: want the skipped record named as stdin line 2", stderr)
	}
	var rep struct {
		File, Format      string
		Messages, Skipped int
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if rep.File != "stdin" || rep.Format != "jsonl" || rep.Messages != 1 || rep.Skipped != 1 {
		t.Errorf("--json summary %+v, want file stdin, format jsonl, 1 message, 1 skipped", rep)
	}
}

// TestContextRunIDReused: a --run-id that already has a memctx record is
// refused (exit 1) with the way out (--replace) named, and --replace then
// records over it.
func TestContextRunIDReused(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runStdin(t, `{"thread":"t1","resource":"r","role":"user","content":"hi"}`+"\n", "--dir", dir, "--embedder", "hash-384", "ingest", "-")
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	args := []string{"--dir", dir, "context", "--thread", "t1", "--run-id", "r1"}
	if code, _, stderr := run(t, nil, args...); code != 0 {
		t.Fatalf("first context: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, args...); code != 1 || !strings.Contains(stderr, "already has a memctx record") || !strings.Contains(stderr, "--replace") {
		t.Errorf("second context under r1: exit %d, stderr %q; want 1 naming --replace", code, stderr)
	}
	if code, _, stderr := run(t, nil, append(args, "--replace")...); code != 0 {
		t.Errorf("context --replace: exit %d: %s", code, stderr)
	}
}

// TestIngestFileErrorNamesFileOnce: an error about the whole file names it
// once, without the package prefix: "mnemo ingest: f.json: LoCoMo data
// must be a JSON array". Before, the CLI's label and the importer's own
// made it "mnemo ingest: f.json: importer: f.json: LoCoMo data …", and
// "mnemo ingest: stdin: importer: nothing imported: …".
func TestIngestFileErrorNamesFileOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "locomo", file}, "mnemo ingest: " + file + ": LoCoMo data must be a JSON array"},
		{[]string{"--format", "longmemeval", "-"}, "mnemo ingest: stdin: LongMemEval data must be a JSON array"},
		{[]string{"--format", "jsonl", "-"}, "mnemo ingest: stdin: nothing imported: the one record of stdin was skipped, for the reason given above (when it is a parse error, the file may not be jsonl)"},
	} {
		code, _, stderr := runStdin(t, "{}", append([]string{"--dir", dir, "--embedder", "hash-384", "ingest"}, c.args...)...)
		last := strings.TrimSpace(stderr)
		if i := strings.LastIndex(last, "\n"); i >= 0 {
			last = last[i+1:]
		}
		if code != 1 || last != c.want {
			t.Errorf("ingest %v: exit %d, last line %q; want 1 and %q", c.args, code, last, c.want)
		}
	}
}
