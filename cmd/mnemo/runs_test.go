package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// TestRunsCursor: `mnemo runs` pages by cursor on a data directory and on
// Postgres (MNEMO_TEST_POSTGRES): pages of 3 by --cursor list every run
// once, in the order of one listing, while a run is recorded after the
// first page (it moves none; by --offset a run is listed twice, as the
// docs/serve.md says); the text ends with the --json page's cursor; the last
// page has none; a thread's listing pages alike. A cursor that is not one,
// an empty one, or --cursor with --offset is a usage error.
func TestRunsCursor(t *testing.T) {
	backends := map[string]func(t *testing.T) (engine.Config, []string){
		"SQLite": func(t *testing.T) (engine.Config, []string) {
			dir := t.TempDir()
			return engine.Config{Dir: dir}, []string{"--dir", dir}
		},
		"Postgres": func(t *testing.T) (engine.Config, []string) {
			if os.Getenv("MNEMO_TEST_POSTGRES") == "" {
				t.Skip("MNEMO_TEST_POSTGRES is unset")
			}
			dsn := pgtest.DSN(t)
			return engine.Config{Postgres: dsn}, []string{"--db", dsn}
		},
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) {
			cfg, where := backend(t)
			cfg.Embedder = recall.HashEmbedder{}
			for i := range 8 {
				recordRun(t, cfg, fmt.Sprintf("run-%d", i), []string{"t-a", "t-b"}[i%2])
			}
			all := runsPage(t, where, "--limit", "1000")
			if len(all.Runs) != 8 || all.NextCursor != "" {
				t.Fatalf("one listing: %+v", all)
			}
			first := runsPage(t, where, "--limit", "3")
			recordRun(t, cfg, "run-late", "t-a")
			got := runIDs(first)
			for cursor := first.NextCursor; cursor != ""; {
				page := runsPage(t, where, "--limit", "3", "--cursor", cursor)
				got, cursor = append(got, runIDs(page)...), page.NextCursor
			}
			if want := runIDs(all); !slices.Equal(got, want) {
				t.Fatalf("by cursor: %q, one listing before run-late: %q", got, want)
			}
			byOffset := runIDs(runsPage(t, where, "--limit", "3", "--offset", "3"))
			if byOffset[0] != got[2] {
				t.Errorf("by offset after run-late: %q, want the first page's last run %s listed again (docs/serve.md's warning)", byOffset, got[2])
			}
			code, text, stderr := run(t, nil, append(where, "runs", "--limit", "3")...)
			if code != 0 || !strings.HasSuffix(text, "more: --cursor "+runsPage(t, where, "--limit", "3").NextCursor+"\n") {
				t.Fatalf("text: exit %d\n%s%s", code, text, stderr)
			}
			thread := runsPage(t, where, "--thread", "t-b", "--limit", "2")
			next := runsPage(t, where, "--thread", "t-b", "--limit", "2", "--cursor", thread.NextCursor)
			if got := append(runIDs(thread), runIDs(next)...); !slices.Equal(got, []string{"run-7", "run-5", "run-3", "run-1"}) || next.NextCursor != "" {
				t.Fatalf("t-b by cursor: %q, next cursor %q", got, next.NextCursor)
			}
			for _, args := range [][]string{
				{"--cursor", "not-a-cursor"},
				{"--cursor", ""},
				{"--cursor", first.NextCursor + "A"},
				{"--cursor", first.NextCursor, "--offset", "0"},
			} {
				code, out, stderr := run(t, nil, append(append(where, "runs", "--json"), args...)...)
				if code != 2 || out != "" || !strings.Contains(stderr, "--cursor") {
					t.Errorf("runs %q: exit %d, stdout %q, stderr %s", args, code, out, stderr)
				}
			}
		})
	}
}

// recordRun records a run (a memctx record) of thread in resource r.
func recordRun(t *testing.T, cfg engine.Config, runID, thread string) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hello " + runID}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: runID, ThreadID: thread, ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
}

// runsPage runs `mnemo runs --json` with args at where (--dir or --db).
func runsPage(t *testing.T, where []string, args ...string) server.RunList {
	t.Helper()
	code, out, stderr := run(t, nil, append(append(where, "runs", "--json"), args...)...)
	var page server.RunList
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
		t.Fatalf("runs %q: exit %d\n%s%s", args, code, out, stderr)
	}
	return page
}

func runIDs(page server.RunList) []string {
	var ids []string
	for _, r := range page.Runs {
		ids = append(ids, r.RunID)
	}
	return ids
}

// TestRunsUnknownThread: a thread is an entity, so `runs --thread T` of a
// thread that does not exist fails as `messages --thread T` does (the
// same message and exit status, nothing on standard output, --json too);
// a thread that exists but has no runs lists none, and a thread id that
// holds runs but no thread (a context loaded before any append) lists
// them (it failed as not found). A resource exists by
// its threads: `runs --resource R` of one without any lists none (exit 0).
// Before, `runs --thread nope` printed an empty table and exited 0.
func TestRunsUnknownThread(t *testing.T) {
	dir := t.TempDir()
	file := t.TempDir() + "/c.jsonl"
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	// A context loaded (over the API or the library) on a thread id
	// nobody created records a run on it.
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(context.Background(), engine.LoadRequest{RunID: "g1", ThreadID: "ghost", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	msgCode, _, msgErr := run(t, nil, "--dir", dir, "messages", "--thread", "nope")
	if msgCode == 0 {
		t.Fatalf("messages --thread nope: exit 0")
	}
	for _, c := range []struct {
		args     []string
		code     int
		stdout   string // exact, for exit 0
		stderrIs string // exact, for a failure
	}{
		{[]string{"runs", "--thread", "nope"}, msgCode, "", strings.Replace(msgErr, "mnemo messages:", "mnemo runs:", 1)},
		{[]string{"runs", "--thread", "nope", "--json"}, msgCode, "", strings.Replace(msgErr, "mnemo messages:", "mnemo runs:", 1)},
		{[]string{"runs", "--thread", "t", "--json"}, 0, "{\n  \"runs\": []\n}\n", ""},
		{[]string{"runs", "--thread", "ghost"}, 0, "", ""}, // lists g1 (checked below)
		{[]string{"runs", "--resource", "nobody", "--json"}, 0, "{\n  \"runs\": []\n}\n", ""},
		{[]string{"runs", "--resource", "nobody"}, 0, noRunsLine + "\n", ""},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		if c.args[2] == "ghost" {
			if code != 0 || !strings.Contains(out, "g1") || !strings.Contains(out, "ghost") {
				t.Errorf("mnemo runs --thread ghost: exit %d, stdout %q, stderr %q; want g1 listed", code, out, stderr)
			}
			continue
		}
		if code != c.code || out != c.stdout || code != 0 && stderr != c.stderrIs {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", strings.Join(c.args, " "), code, out, stderr, c.code, c.stdout, c.stderrIs)
		}
	}
}
