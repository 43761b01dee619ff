package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestExportMalformedMoves: a store (SQLite or Postgres) holding rows
// written outside mnemo, tool_calls that are not JSON on an assistant
// message with no content, a mixed array on one with content, and
// metadata that is not JSON, exports: each value is written as text (the
// calls as the content, the metadata under mnemo_malformed_metadata) and
// named by thread, seq and field; ingest --strict of the export stores
// every line. Before, the metadata stopped the export ("decode metadata
// of …"), and the assistant message without content was written with
// neither content nor calls, which ingest --strict refused.
func TestExportMalformedMoves(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	writeFile(t, in, `{"thread":"t1","resource":"u1","id":"m1","role":"user","content":"the weather in Porto?"}
{"thread":"t1","resource":"u1","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"weather","arguments":{"city":"Porto"}}]}
{"thread":"t1","resource":"u1","id":"m3","role":"tool","tool_call_id":"c1","name":"weather","content":"sunny"}
{"thread":"t1","resource":"u1","id":"m4","role":"assistant","content":"It is sunny.","metadata":{"mood":"glad"}}
{"thread":"t1","resource":"u1","id":"m5","role":"assistant","content":"Looking again.","tool_calls":[{"id":"c5","name":"weather","arguments":{}}]}
`)
	tampers := []string{
		`UPDATE messages SET tool_calls = 'not JSON {' WHERE id = 'm2'`,
		`UPDATE messages SET metadata = 'mood: glad' WHERE id = 'm4'`,
		`UPDATE messages SET tool_calls = '[{"id":"c5","name":"weather"},{"id":7}]' WHERE id = 'm5'`,
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		cfg := be.NewStore(t).Config(engine.Config{})
		src := []string{"--dir", cfg.Dir}
		if cfg.Postgres != "" {
			src = []string{"--db", cfg.Postgres}
		}
		if code, out, errOut := run(t, nil, append(src, "ingest", "--strict", in)...); code != 0 {
			t.Fatalf("ingest: exit %d\n%s%s", code, out, errOut)
		}
		if cfg.Postgres != "" {
			for _, s := range tampers {
				pgtest.Exec(t, cfg.Postgres, s)
			}
		} else {
			execSQL(t, filepath.Join(cfg.Dir, engine.DatabaseFile), tampers...)
		}
		dump := filepath.Join(t.TempDir(), "memory.jsonl")
		code, out, errOut := run(t, nil, append(src, "export", dump)...)
		if code != 0 {
			t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
		}
		const calls = ": tool_calls, not a JSON array of calls, written as its content (after the message's own and a blank line) with no tool_calls"
		want := []string{
			"mnemo export: thread t1 seq 2 (message m2)" + calls,
			"mnemo export: thread t1 seq 4 (message m4): metadata, not a JSON object, written as its text under metadata member mnemo_malformed_metadata",
			"mnemo export: thread t1 seq 5 (message m5)" + calls,
		}
		if got := strings.TrimSuffix(errOut, "\n"); got != strings.Join(want, "\n") {
			t.Errorf("export's standard error:\n%s\nwant:\n%s", errOut, strings.Join(want, "\n"))
		}
		if !strings.Contains(out, "5 messages; 3 malformed stored values (written outside mnemo) written as text (named above) to "+dump) {
			t.Errorf("export's summary: %q", out)
		}
		b, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			`"id":"m2","role":"assistant","content":"not JSON {","created_at"`,
			`"id":"m4","role":"assistant","content":"It is sunny.","metadata":{"mnemo_malformed_metadata":"mood: glad"}`,
			`"id":"m5","role":"assistant","content":"Looking again.\n\n[{\"id\":\"c5\",\"name\":\"weather\"},{\"id\":7}]","created_at"`,
		} {
			if !strings.Contains(string(b), s) {
				t.Errorf("the export lacks %s:\n%s", s, b)
			}
		}
		target := t.TempDir()
		code, out, errOut = run(t, nil, "--dir", target, "ingest", "--strict", dump)
		if code != 0 || !strings.Contains(out, "5 messages stored, 0 already stored, 0 skipped") {
			t.Fatalf("ingest --strict of the export: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, errOut := run(t, nil, "--dir", target, "check", "--full"); code != 0 {
			t.Errorf("check --full of the target: exit %d\n%s%s", code, out, errOut)
		}
	})
}
