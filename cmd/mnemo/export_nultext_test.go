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

// TestExportNULArgumentsText: tool-call arguments stored as a JSON string
// holding an object whose text escapes NUL ("{\"city\":\"Por\\u0000to\"}",
// written here by raw SQL as a build that kept a model's text stored it)
// move to either backend: export writes the object ingest would store
// (engine.ToolCallArgumentsOf) with the NUL as U+FFFD, names the value,
// and ingest --strict stores it; the target's export is the source's
// byte for byte. A string that holds no object (a model's broken text
// mentioning \u0000) is written as stored. Before, export wrote the
// string as stored (its \\u0000 is no NUL of the string), and ingest, which
// reads a string holding an object as the object, refused the line
// ("must not hold U+0000"). Ids cannot hold NUL: Append refuses any id
// outside [A-Za-z0-9_.:@-] (engine.ValidID), so no store mnemo wrote has
// one.
func TestExportNULArgumentsText(t *testing.T) {
	src := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	writeFile(t, in, `{"thread":"t1","resource":"u1","id":"m1","role":"user","content":"weather?"}
{"thread":"t1","resource":"u1","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"weather","arguments":{"city":"Porto"}},{"id":"c2","name":"note","arguments":"C:\\u0000 broken {"}]}
{"thread":"t1","resource":"u1","id":"m3","role":"tool","tool_call_id":"c1","name":"weather","content":"sunny"}
{"thread":"t1","resource":"u1","id":"m4","role":"tool","tool_call_id":"c2","name":"note","content":"ok"}
`)
	if code, out, errOut := run(t, nil, "--dir", src, "ingest", in); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errOut)
	}
	execSQL(t, filepath.Join(src, engine.DatabaseFile),
		`UPDATE messages SET tool_calls = '[{"id":"c1","name":"weather","arguments":"{\"ci\\u0000ty\":\"Por\\u0000to\"}"},{"id":"c2","name":"note","arguments":"C:\\u0000 broken {"}]' WHERE id = 'm2'`)

	dump := filepath.Join(t.TempDir(), "memory.jsonl")
	code, out, errOut := run(t, nil, "--dir", src, "export", dump)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	if want := "mnemo export: thread t1 seq 2 (message m2): tool_calls[0].arguments held 2 NUL characters (U+0000), which no store accepts now: written as U+FFFD\n"; errOut != want {
		t.Errorf("export's standard error %q, want %q", errOut, want)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"arguments":{"ci` + "\uFFFD" + `ty":"Por` + "\uFFFD" + `to"}`, `"arguments":"C:\\u0000 broken {"`} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("the export lacks %s:\n%s", s, b)
		}
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		cfg := be.NewStore(t).Config(engine.Config{})
		target := []string{"--dir", cfg.Dir}
		if cfg.Postgres != "" {
			target = []string{"--db", cfg.Postgres}
		}
		code, out, errOut := run(t, nil, append(target, "ingest", "--strict", dump)...)
		if code != 0 || !strings.Contains(out, "4 messages stored, 0 already stored, 0 skipped") {
			t.Fatalf("ingest --strict of the export: exit %d\n%s%s", code, out, errOut)
		}
		code, again, errOut := run(t, nil, append(target, "export", "-")...)
		if code != 0 || again != string(b) {
			t.Errorf("the target's export: exit %d\n%s\nwant the source's:\n%s%s", code, again, b, errOut)
		}
	})
}
