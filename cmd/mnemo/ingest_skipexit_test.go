package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestSkippedExit: an ingest without --strict that skipped records
// exits 3 (exitSkipped), not 0, saying how many and that the rest is
// stored: a script can tell "every record stored" (0) from "stored but
// for the records named" (3) and from a failure (1). --strict keeps
// exit 1 at the first one; every record skipped stays exit 1 (nothing
// imported). Before, an ingest that skipped records exited 0.
func TestIngestSkippedExit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}`
	bad := `{"thread":"t1","resource":"r","id":"m2","role":"wizard","content":"x"}`
	bad2 := `{"thread":"t1","resource":"r","id":"m3","role":"user","content":"x",`
	clean, mixed, twice, allBad := write("clean.jsonl", good), write("mixed.jsonl", good, bad), write("twice.jsonl", good, bad, bad2), write("bad.jsonl", bad)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"Clean", []string{"ingest", clean}, 0, ""},
		{"Skipped", []string{"ingest", mixed}, exitSkipped, "mnemo ingest: 1 record was skipped, named above; every other record is stored"},
		{"SkippedTwo", []string{"ingest", twice}, exitSkipped, "mnemo ingest: 2 records were skipped, each named above; every other record is stored"},
		{"SkippedJSON", []string{"ingest", "--json", mixed}, exitSkipped, "1 record was skipped"},
		{"SkippedInOneOfTwo", []string{"ingest", clean, mixed}, exitSkipped, "1 record was skipped"},
		{"Strict", []string{"ingest", "--strict", mixed}, 1, "--strict stopped"},
		{"AllSkipped", []string{"ingest", allBad}, 1, "nothing imported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.stderr) || (c.code != 1 && out == "") {
				t.Fatalf("exit %d, out %q, stderr %q; want exit %d, a summary, stderr holding %q", code, out, stderr, c.code, c.stderr)
			}
		})
	}
}
