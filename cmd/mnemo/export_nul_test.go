package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestExportNULMoves: a data directory holding NUL characters (U+0000),
// as a build before walk53 stored them (written here by raw SQL: in a
// message's content, in tool-call arguments as the \u0000 escape in a
// key and a value, in metadata, and in a working-memory state), moves to
// either backend (docs/postgres.md, "Moving between SQLite and
// Postgres"): export writes each NUL as U+FFFD and names every value it
// changed by thread, seq and field; ingest --strict stores every line;
// the target's export is the source's byte for byte. Before, export wrote
// the NULs, and ingest skipped those lines ("invalid content: must not
// contain NUL bytes", exit 0 without --strict) or, with --strict, stopped
// at the first: the values did not move.
func TestExportNULMoves(t *testing.T) {
	src := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	writeFile(t, in, `{"thread":"t1","resource":"u1","id":"m1","role":"user","content":"the gate code is 4711"}
{"thread":"t1","resource":"u1","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"weather","arguments":{"city":"Porto"}}]}
{"thread":"t1","resource":"u1","id":"m3","role":"tool","tool_call_id":"c1","name":"weather","content":"sunny"}
{"thread":"t1","resource":"u1","id":"m4","role":"assistant","content":"It is sunny.","metadata":{"mood":"glad"}}
`)
	if code, out, errOut := run(t, nil, "--dir", src, "ingest", in); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errOut)
	}
	wm := filepath.Join(t.TempDir(), "wm.md")
	writeFile(t, wm, "# Notes\n- name: Ana\n")
	if code, out, errOut := run(t, nil, "--dir", src, "wm", "set", "--thread", "t1", "--markdown", wm); code != 0 {
		t.Fatalf("wm set: exit %d\n%s%s", code, out, errOut)
	}
	execSQL(t, filepath.Join(src, engine.DatabaseFile),
		`UPDATE messages SET content = 'the gate code is ' || char(0) || '4711' WHERE id = 'm1'`,
		`UPDATE messages SET tool_calls = '[{"id":"c1","name":"weather","arguments":{"ci\u0000ty":"Por\u0000to","path":"C:\\u0000"}}]' WHERE id = 'm2'`,
		`UPDATE messages SET metadata = '{"mood":"gl\u0000ad"}' WHERE id = 'm4'`,
		`UPDATE working_memory SET content = '# Notes' || char(10) || '- name: A' || char(0) || 'na' || char(10)`)

	dump := filepath.Join(t.TempDir(), "memory.jsonl")
	code, out, errOut := run(t, nil, "--dir", src, "export", dump)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	const tail = ", which no store accepts now: written as U+FFFD"
	want := []string{
		"mnemo export: thread t1 seq 1 (message m1): content held 1 NUL character (U+0000)" + tail,
		"mnemo export: thread t1 seq 2 (message m2): tool_calls[0].arguments held 2 NUL characters (U+0000)" + tail,
		"mnemo export: thread t1 seq 4 (message m4): metadata held 1 NUL character (U+0000)" + tail,
		"mnemo export: the working-memory state of thread t1 held 1 NUL character (U+0000)" + tail,
	}
	if got := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("export's standard error:\n%s\nwant:\n%s", errOut, strings.Join(want, "\n"))
	}
	if !strings.Contains(out, "; 4 stored values with NUL characters written with U+FFFD in their place (named above) to "+dump) {
		t.Errorf("export's summary: %q", out)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"the gate code is \uFFFD4711", "{\"ci\uFFFDty\":\"Por\uFFFDto\",\"path\":\"C:\\\\u0000\"}", "\"mood\":\"gl\uFFFDad\"", "- name: A\uFFFDna"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("the export lacks %q:\n%s", s, b)
		}
	}

	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		cfg := be.NewStore(t).Config(engine.Config{})
		target := []string{"--dir", cfg.Dir}
		if cfg.Postgres != "" {
			target = []string{"--db", cfg.Postgres}
		}
		code, out, errOut := run(t, nil, append(target, "ingest", "--strict", dump)...)
		if code != 0 || !strings.Contains(out, "4 messages stored, 0 already stored, 0 skipped; 1 working-memory state set") {
			t.Fatalf("ingest --strict of the export: exit %d\n%s%s", code, out, errOut)
		}
		code, again, errOut := run(t, nil, append(target, "export", "-")...)
		if code != 0 || again != string(b) {
			t.Errorf("the target's export: exit %d\n%s\nwant the source's:\n%s%s", code, again, b, errOut)
		}
	})
}
