package main

import (
	"strings"
	"testing"
)

// TestListingNotesEmptyResource: threads, runs and observations of a
// resource with no threads (a mistyped id), and observations of a thread
// not stored, note it on standard error, exit 0, as search notes a
// resource with no messages; before, threads printed its header alone,
// runs an empty table and observations "(no observations)", in silence.
// A stored resource with no runs or observations is no note.
func TestListingNotesEmptyResource(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		args []string
		note string // "": none
	}{
		{[]string{"threads", "--resource", "nobody"}, `mnemo threads: note: resource "nobody" has no threads`},
		{[]string{"threads", "--json", "--resource", "nobody"}, `mnemo threads: note: resource "nobody" has no threads`},
		{[]string{"runs", "--resource", "nobody"}, `mnemo runs: note: resource "nobody" has no threads`},
		{[]string{"runs", "--json", "--resource", "nobody"}, `mnemo runs: note: resource "nobody" has no threads`},
		{[]string{"threads", "--resource", "r0"}, ""},
		{[]string{"threads"}, ""},
		{[]string{"runs", "--resource", "r0"}, ""},
		// observations said "(no observations)" alone (walk48).
		{[]string{"observations", "--resource", "nobody"}, `mnemo observations: note: resource "nobody" has no threads`},
		{[]string{"observations", "--json", "--resource", "nobody"}, `mnemo observations: note: resource "nobody" has no threads`},
		{[]string{"observations", "--thread", "nobody"}, `mnemo observations: note: thread "nobody" is not stored`},
		{[]string{"observations", "--resource", "r0"}, ""},
		{[]string{"observations", "--thread", "t0"}, ""},
	} {
		code, _, errOut := run(t, env, append([]string{"--dir", dir}, c.args...)...)
		if code != 0 {
			t.Errorf("mnemo %q: exit %d: %s", c.args, code, errOut)
		}
		if c.note == "" && errOut != "" || c.note != "" && !strings.Contains(errOut, c.note) {
			t.Errorf("mnemo %q: standard error %q, want note %q", c.args, errOut, c.note)
		}
	}
}
