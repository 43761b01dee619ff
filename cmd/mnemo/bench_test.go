package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

// issueRef matches a reference to the project's issues ("issue 8",
// "issue 8's"), which user output must not hold.
var issueRef = regexp.MustCompile(`(?i)\bissues? #?[0-9]+`)

func TestBench(t *testing.T) {
	work := filepath.Join(t.TempDir(), "data")
	code, out, stderr := run(t, nil, "bench", "--size", "600", "--resources", "3", "--queries", "20", "--appends", "10", "--work", work, "--keep", "--json")
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if got, want := rep.Corpus.Messages, 600; got != want {
		t.Errorf("messages=%d, want %d", got, want)
	}
	if got, want := rep.Corpus.Resources, 3; got != want {
		t.Errorf("resources=%d, want %d", got, want)
	}
	if got, want := rep.LoadContext.N, 20; got != want {
		t.Errorf("LoadContext runs=%d, want %d", got, want)
	}
	if got, want := rep.Append.N, 10; got != want {
		t.Errorf("single appends=%d, want %d", got, want)
	}
	if got, want := rep.FirstUse.N, 3; got != want {
		t.Errorf("first uses=%d, want %d (one per queried resource)", got, want)
	}
	for _, ch := range []string{"lexical", "vector", "hybrid"} {
		if l := rep.Search[ch]; l.N != 20 || l.P50 <= 0 || l.P50 > l.P99 {
			t.Errorf("search %s: %+v", ch, l)
		}
	}
	if rep.Ingest.MessagesPerSec <= 0 || rep.OpenMs <= 0 || rep.Disk.SQLite <= 0 || rep.Disk.Lexical <= 0 {
		t.Errorf("missing figures: %+v, open %v, disk %+v", rep.Ingest, rep.OpenMs, rep.Disk)
	}
	// The synthetic queries come from stored messages: most must reach the prompt.
	if rep.TargetRecalled < 0.6 {
		t.Errorf("source message in prompt for %.2f of queries, want >= 0.6", rep.TargetRecalled)
	}
	if _, err := os.Stat(filepath.Join(work, "mnemo.db")); err != nil {
		t.Errorf("--keep: %v", err)
	}
	// User output names no issue of the project's tracker (readme51 F8:
	// "issue 8's configuration").
	for _, n := range rep.Notes {
		if issueRef.MatchString(n) {
			t.Errorf("note %q names an issue", n)
		}
	}
	// The vector index against the exact scan (resources this small are
	// scored exactly: recall 1).
	if x := rep.Exactness; x == nil || x.Queries != 20 || x.ExactHits == 0 || x.RecallAt10 != 1 {
		t.Errorf("exactness: %+v", x)
	}
	baseline := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(baseline, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}

	// --reuse measures the kept directory without ingesting.
	code, out, stderr = run(t, nil, "bench", "--reuse", work, "--queries", "7", "--appends", "2", "--sweep", "--exactness", "0", "--baseline", baseline, "--json")
	if code != 0 {
		t.Fatalf("bench --reuse exit %d: %s", code, stderr)
	}
	var again bench.Report
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatalf("bench --reuse --json: %v\n%s", err, out)
	}
	if again.Sweep.N != 3 || again.PeakRSSSweep <= 0 {
		t.Errorf("bench --sweep: %+v, peak %d", again.Sweep, again.PeakRSSSweep)
	}
	if again.Ingest.Messages != 0 || again.Corpus.Messages != 600 || again.LoadContext.N != 7 || again.TargetRecalled < 0.5 {
		t.Errorf("bench --reuse: ingest %+v, corpus %+v, LoadContext %+v, target %.2f", again.Ingest, again.Corpus, again.LoadContext, again.TargetRecalled)
	}
	if q := again.Ratios; q == nil || q.LoadContextP50 <= 0 || q.LoadContextP99 <= 0 || q.FirstUse <= 0 || again.Exactness != nil {
		t.Errorf("--baseline ratios %+v, --exactness 0 gave %+v", q, again.Exactness)
	}

	// The table names every figure.
	code, out, stderr = run(t, nil, "bench", "--size", "300", "--queries", "5", "--appends", "2", "--baseline", baseline)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, stderr)
	}
	for _, want := range []string{"msgs/s", "open (cold start)", "peak RSS", "LoadContext (recall on)", "search vector", "p99", "recall@10 vs exact", "flatness", "first use"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	existing := t.TempDir()
	for _, args := range [][]string{
		{"bench", "--size", "ten"},
		{"bench", "--size", "0"},
		{"bench", "--batch", "0"},
		{"bench", "--work", existing},
		{"bench", "extra"},
		{"bench", "--reuse", existing, "--work", existing},
		{"bench", "--exactness", "-1"},
		{"bench", "--baseline", filepath.Join(existing, "missing.json")},
		// --dir is not where bench writes (it ran in a temporary directory
		// and said nothing of the --dir given).
		{"--dir", existing, "bench", "--size", "300", "--queries", "5"},
	} {
		code, _, stderr := run(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "usage") && !strings.Contains(stderr, "' for the flags.") {
			t.Errorf("mnemo %v: exit %d, stderr %q; want 2 and a usage hint", args, code, stderr)
		}
	}
}

func TestBenchFile(t *testing.T) {
	// A small JSONL file from the synthetic corpus: 3 resources.
	c, err := synth.New(synth.Config{Messages: 300, Resources: 3, ThreadMessages: 50})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for th := range c.All() {
		for _, m := range th.Messages {
			rec := map[string]any{"thread": th.ID, "resource": th.ResourceID, "id": m.ID, "role": m.Role, "content": m.Content, "name": m.Name}
			if len(m.ToolCalls) > 0 {
				rec["tool_calls"] = m.ToolCalls
			}
			if m.ToolCallID != "" {
				rec["tool_call_id"] = m.ToolCallID
			}
			if err := enc.Encode(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "bench", "--file", path, "--format", "jsonl", "--queries", "10", "--appends", "3", "--json")
	if code != 0 {
		t.Fatalf("bench --file exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --file --json: %v\n%s", err, out)
	}
	if rep.Corpus.Messages != 300 || rep.Corpus.Resources != 3 || rep.LoadContext.N != 10 || rep.Ingest.MessagesPerSec <= 0 || rep.Ingest.AppendCall.N == 0 {
		t.Errorf("bench --file: corpus %+v, ingest %+v, LoadContext %+v", rep.Corpus, rep.Ingest, rep.LoadContext)
	}
}
