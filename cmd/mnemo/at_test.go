package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAtFlag: search and context resolve a question's relative date
// against --at (a --queries line against its own "at"), so the turn said
// that day comes first among turns of the same words; a malformed --at is
// a usage error naming the flag; context records the time in memctx.
func TestAtFlag(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for _, d := range []string{"08", "09", "10"} {
		in.WriteString(`{"thread":"t` + d + `","resource":"r","role":"user","content":"we talked about the garden plans","created_at":"2023-05-` + d + `T10:00:00Z"}` + "\n")
	}
	m := &Main{Stdin: strings.NewReader(in.String()), Stdout: new(strings.Builder), Stderr: new(strings.Builder),
		Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
	if code := m.Run(t.Context(), []string{"--dir", dir, "ingest", "-"}); code != 0 {
		t.Fatalf("ingest: exit %d %s", code, m.Stderr)
	}
	first := func(out string) string {
		var res struct {
			Hits []struct{ ThreadID string } `json:"hits"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
			t.Fatalf("search output %q: %v", out, err)
		}
		return res.Hits[0].ThreadID
	}
	for at, want := range map[string]string{"2023-05-10T15:00:00Z": "t09", "2023-05-11T08:00:00+02:00": "t10", "2023-05-09T01:00:00Z": "t08"} {
		code, out, errOut := run(t, nil, "--dir", dir, "search", "--resource", "r", "--json", "--at", at, "what did we talk about yesterday?")
		if code != 0 {
			t.Fatalf("search --at %s: exit %d %s", at, code, errOut)
		}
		if got := first(out); got != want {
			t.Errorf("search --at %s: first hit in %s, want %s", at, got, want)
		}
	}
	qf := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(qf, []byte(`{"id":"a","resource":"r","query":"what did we talk about yesterday?","at":"2023-05-10T15:00:00Z"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, nil, "--dir", dir, "search", "--queries", qf, "--at", "2023-05-09T01:00:00Z"); code != 0 || first(out) != "t09" {
		t.Errorf("search --queries with a line's at: exit %d %s %s", code, out, errOut)
	}
	code, _, errOut := run(t, nil, "--dir", dir, "search", "--resource", "r", "--at", "yesterday", "garden")
	if code != 2 || !strings.Contains(errOut, "--at") {
		t.Errorf("search --at yesterday: exit %d %s", code, errOut)
	}
	code, out, errOut := run(t, nil, "--dir", dir, "context", "--thread", "t08", "--top-k", "1", "--recent", "-1", "--json",
		"--query", "what did we talk about yesterday?", "--at", "2023-05-11T08:00:00Z")
	if code != 0 {
		t.Fatalf("context --at: exit %d %s", code, errOut)
	}
	var c struct {
		MemCtx struct {
			QueryAt  string `json:"queryAt"`
			Recalled []struct {
				ThreadID string `json:"threadId"`
			} `json:"recalled"`
		} `json:"memctx"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.MemCtx.QueryAt != "2023-05-11T08:00:00.000Z" || len(c.MemCtx.Recalled) == 0 || c.MemCtx.Recalled[0].ThreadID != "t10" {
		t.Errorf("context --at: memctx %+v", c.MemCtx)
	}
}

// TestQueriesBadAt: a --queries line whose "at" is not an RFC 3339 string
// is an error naming the file, the line and the field.
func TestQueriesBadAt(t *testing.T) {
	dir := t.TempDir()
	m := &Main{Stdin: strings.NewReader(`{"thread":"t","resource":"r","role":"user","content":"garden plans"}` + "\n"), Stdout: new(strings.Builder), Stderr: new(strings.Builder),
		Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
	if code := m.Run(t.Context(), []string{"--dir", dir, "ingest", "-"}); code != 0 {
		t.Fatalf("ingest: exit %d %s", code, m.Stderr)
	}
	for _, at := range []string{`5`, `"yesterday"`} {
		qf := filepath.Join(t.TempDir(), "q.jsonl")
		if err := os.WriteFile(qf, []byte(`{"id":"a","resource":"r","query":"garden","at":`+at+`}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, nil, "--dir", dir, "search", "--queries", qf)
		if code == 0 || !strings.Contains(errOut, "q.jsonl:1: at: ") {
			t.Errorf("--queries line with at %s: exit %d %q, want an error naming line 1's at", at, code, errOut)
		}
	}
}

// TestZeroTimeRefused: an explicit zero time (0001-01-01T00:00:00Z, an
// unset time value written out) is refused by --at, by a --queries line's
// "at" and by an imported line's created_at, as the HTTP API refuses it;
// left out, each means now. Before, each silently meant now.
func TestZeroTimeRefused(t *testing.T) {
	dir := t.TempDir()
	m := &Main{Stdin: strings.NewReader(`{"thread":"t","resource":"r","role":"user","content":"garden plans"}` + "\n" +
		`{"thread":"t","resource":"r","role":"user","content":"zero","created_at":"0001-01-01T00:00:00Z"}` + "\n"),
		Stdout: new(strings.Builder), Stderr: new(strings.Builder),
		Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
	if code := m.Run(t.Context(), []string{"--dir", dir, "ingest", "-"}); code != exitSkipped || !strings.Contains(m.Stderr.(*strings.Builder).String()+m.Stdout.(*strings.Builder).String(), "zero time") {
		t.Fatalf("ingest with a zero created_at: exit %d, want its line skipped for the zero time:\n%s%s", code, m.Stdout, m.Stderr)
	}
	for _, cmd := range [][]string{{"search", "--resource", "r", "garden"}, {"context", "--thread", "t"}} {
		code, _, errOut := run(t, nil, append([]string{"--dir", dir}, append(cmd[:1:1], append([]string{"--at", "0001-01-01T00:00:00Z"}, cmd[1:]...)...)...)...)
		if code == 0 || !strings.Contains(errOut, "zero time") {
			t.Errorf("%s --at 0001-01-01T00:00:00Z: exit %d %q", cmd[0], code, errOut)
		}
	}
	qf := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(qf, []byte(`{"id":"a","resource":"r","query":"garden","at":"0001-01-01T00:00:00Z"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, nil, "--dir", dir, "search", "--queries", qf); code == 0 || !strings.Contains(errOut, "q.jsonl:1: at: ") || !strings.Contains(errOut, "zero time") {
		t.Errorf("--queries line with the zero time: exit %d %q", code, errOut)
	}
}

// TestQueriesUnknownField: a --queries line with a field search does not
// know is an error naming the file, the line and the field, before that
// line's search (the lines before it are answered), as POST /v1/search
// refuses one. Before, a misspelt
// "thred" was left out silently and the line searched the whole resource
// (exit 0, the other thread's hits).
func TestQueriesUnknownField(t *testing.T) {
	dir := scoresFixture(t)
	qf := filepath.Join(t.TempDir(), "q.jsonl")
	// The member it most likely meant is named, as in a JSONL record of
	// mnemo ingest, else the members are listed.
	for member, want := range map[string]string{
		`"thred":"t"`: `q.jsonl:2: unknown field "thred" (did you mean "thread"?)`,
		`"topK":5`:    `q.jsonl:2: unknown field "topK" (a line has id, resource, thread, query, filter and at)`,
		// Names are case-sensitive, as in a request body: encoding/json
		// read "Thread" as thread.
		`"Thread":"t"`: `q.jsonl:2: unknown field "Thread" (did you mean "thread"? names are case-sensitive)`,
	} {
		if err := os.WriteFile(qf, []byte(`{"id":"a","resource":"r","query":"garden"}`+"\n"+`{"id":"b","resource":"r",`+member+`,"query":"garden"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, nil, "--dir", dir, "search", "--queries", qf)
		if code != 1 || !strings.Contains(errOut, want) || strings.Contains(out, `"id":"b"`) {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1, no answer for line 2 and %q", code, out, errOut, want)
		}
	}
}

// TestQueriesWrongType: a --queries member of the wrong JSON type, or a
// line that is no object, is named with the type it must be, as POST
// /v1/search words it (readme68 F8: it was encoding/json's "cannot
// unmarshal number into Go struct field searchQuery.query of type
// string").
func TestQueriesWrongType(t *testing.T) {
	dir := scoresFixture(t)
	qf := filepath.Join(t.TempDir(), "q.jsonl")
	for line, want := range map[string]string{
		`{"resource":"r","query":5}`:             `q.jsonl:2: "query" must be a JSON string, not a number`,
		`{"resource":["r"],"query":"garden"}`:    `q.jsonl:2: "resource" must be a JSON string, not an array`,
		`{"resource":"r","query":"g","id":true}`: `q.jsonl:2: "id" must be a JSON string, not a boolean`,
		`["r","garden"]`:                         `q.jsonl:2: the line must be a JSON object, not an array`,
	} {
		if err := os.WriteFile(qf, []byte(`{"id":"a","resource":"r","query":"garden"}`+"\n"+line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, nil, "--dir", dir, "search", "--queries", qf)
		if code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "Go struct") || strings.Contains(errOut, "unmarshal") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", line, code, errOut, want)
		}
	}
}
