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

// TestListingSaysNone: mnemo runs with no run and mnemo threads with no
// thread say there are none and what makes one, where they printed their
// table's header alone; --json stays an empty list.
func TestListingSaysNone(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 1, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	want := func(args []string, out string) {
		t.Helper()
		code, got, errOut := run(t, env, append([]string{"--dir", dir}, args...)...)
		if code != 0 || strings.TrimSpace(got) != out {
			t.Errorf("mnemo %q: exit %d, standard output %q, want %q\n%s", args, code, got, out, errOut)
		}
	}
	want([]string{"runs"}, noRunsLine)
	want([]string{"runs", "--thread", "t0"}, noRunsLine)
	want([]string{"runs", "--json"}, "{\n  \"runs\": []\n}")
	if code, _, errOut := run(t, env, "--dir", dir, "delete", "--thread", "t0", "--yes"); code != 0 {
		t.Fatalf("delete: exit %d: %s", code, errOut)
	}
	want([]string{"threads"}, noThreadsLine)
	want([]string{"threads", "--json"}, "[]")
	if !strings.Contains(noRunsLine, "LoadContext") || !strings.Contains(noThreadsLine, "mnemo ingest") {
		t.Errorf("the lines say what makes a run and a thread: %q, %q", noRunsLine, noThreadsLine)
	}
}
