package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/search/previews.golden")

// TestSearchPreviewsGolden: the table of `mnemo search` shows each
// message's preview byte for byte as it did when it read whole messages
// (testdata/search/previews.golden, written by main 57bf0ca with -update):
// short and long messages, multibyte text, several lines, tool calls
// short and long. The previews are now written from each message's first
// characters.
func TestSearchPreviewsGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	long := strings.Repeat("lantern ", 40_000/8)
	call := func(id, args string) []map[string]any {
		return []map[string]any{{"id": id, "name": "lookup", "arguments": json.RawMessage(args)}}
	}
	lines := []map[string]any{
		{"role": "user", "content": "harbour short note"},
		{"role": "assistant", "content": "harbour " + long},
		{"role": "user", "content": "harbour " + strings.Repeat("日本語の文章、", 2000)},
		{"role": "assistant", "content": "harbour\n\n  line two\tthree\r\nfour"},
		{"role": "user", "content": "harbour " + strings.Repeat("😀 é ", 3000)},
		{"role": "user", "content": "harbour " + strings.Repeat("x", 100)},
		{"role": "assistant", "content": "harbour small call", "tool_calls": call("c1", `{"q":"harbour <b> & é"}`)},
		{"role": "tool", "content": "harbour result", "tool_call_id": "c1"},
		{"role": "assistant", "content": "harbour big call", "tool_calls": call("c2", `{"q":"`+long+`"}`)},
		{"role": "tool", "content": "harbour result", "tool_call_id": "c2"},
	}
	in := filepath.Join(t.TempDir(), "previews.jsonl")
	var b strings.Builder
	for _, l := range lines {
		l["thread"], l["resource"] = "t1", "r"
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	code, stdout, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "--mode", "lexical", "--top-k", "100", "harbour")
	if code != 0 {
		t.Fatalf("search: exit %d %s", code, stderr)
	}
	got := previewRows(t, stdout)
	golden := filepath.Join("testdata", "search", "previews.golden")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("previews (thread, seq, preview):\n%s\nwant (%s):\n%s", got, golden, want)
	}
}

// previewRows returns the thread, seq and preview of each row of a
// `mnemo search` table, in its order (one line each, tab
// separated), and fails when there is no table.
func previewRows(t *testing.T, stdout string) string {
	t.Helper()
	rows := tableLines(t, stdout)
	header, rows := rows[0], rows[1:]
	at := strings.Index(header, "preview")
	var b strings.Builder
	for _, r := range rows {
		f := strings.Fields(r[:at])
		fmt.Fprintf(&b, "%s\t%s\t%s\n", f[0], f[1], r[at:])
	}
	return b.String()
}

// tableLines returns the header and rows of a `mnemo search` table.
func tableLines(t *testing.T, stdout string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "thread ") || strings.HasPrefix(l, "reason ") {
			return lines[i:]
		}
	}
	t.Fatalf("no table in\n%s", stdout)
	return nil
}

// TestSearchPreviewsUnbounded: `mnemo search` prints the previews of
// hits whose messages pass limits.maxAnswerBytes, which it no longer
// reads whole: six 100 KB messages under a bound of 300,000 bytes are six
// rows. It refused them ("lower --top-k or --range") when it read them
// through SearchMessages. --json prints each hit's message, as
// POST /v1/search does, within the same bound (cli58); past it the hits'
// ids and scores alone, as before cli58, with a note naming the bound and
// the flags to lower (cli58's --json failed there, exit 1, where it had
// answered: rev58).
func TestSearchPreviewsUnbounded(t *testing.T) {
	dir := bigMessagesDir(t, 300_000)
	code, stdout, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "--top-k", "6", "--range", "0", "harbour lantern")
	if code != 0 || strings.Count(stdout, "harbour note") != 6 || len(tableLines(t, stdout)) != 7 {
		t.Fatalf("search past the bound: exit %d %s\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = run(t, nil, "--dir", dir, "search", "--json", "--resource", "r", "--top-k", "5", "--range", "0", "harbour lantern")
	if code != 0 || strings.Count(stdout, `"messageId"`) != 5 || strings.Contains(stdout, `"content"`) ||
		!strings.Contains(stderr, "mnemo search: note: the hits are printed without their messages: ") ||
		!strings.Contains(stderr, "(limits.maxAnswerBytes in mnemo.json); lower --top-k or --range") {
		t.Fatalf("search --json past the bound: exit %d %s\n%s\nwant exit 0, 5 hits without their messages and a note naming the bound", code, stderr, stdout)
	}
	code, stdout, stderr = run(t, nil, "--dir", dir, "search", "--json", "--resource", "r", "--top-k", "2", "--range", "0", "harbour lantern")
	if code != 0 || strings.Count(stdout, `"messageId"`) != 2 || strings.Count(stdout, `"content"`) != 2 {
		t.Fatalf("search --json: exit %d %s\n%s", code, stderr, stdout)
	}
}

// TestSearchPreviewsLarge: `mnemo search --top-k 1000` over 100 messages
// of 200 KB in one resource (20 MB, 1.2 times the default
// limits.maxAnswerBytes) prints 100 rows, on SQLite and on Postgres
// (skipped without MNEMO_TEST_POSTGRES). Before, it refused: "the
// answer's messages pass 16777216 bytes".
func TestSearchPreviewsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 20 MB")
	}
	in := filepath.Join(t.TempDir(), "large.jsonl")
	var b strings.Builder
	const n = 100 // 20 MB: past the bound; 600 (120 MB) took 130 s of CI
	for i := range n {
		content := fmt.Sprintf("harbour note %d ", i) + strings.Repeat("lantern ", 200_000/8)
		j, _ := json.Marshal(map[string]any{"thread": fmt.Sprintf("t%d", i%12), "resource": "r", "role": "user", "content": content[:200_000]})
		b.Write(append(j, '\n'))
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			place := []string{"--embedder", "hash-384", "--dir", filepath.Join(t.TempDir(), "data")}
			if backend == "postgres" {
				place = []string{"--embedder", "hash-384", "--db", pgtest.DSN(t)}
			}
			if code, _, stderr := run(t, nil, append(place, "ingest", in)...); code != 0 {
				t.Fatalf("ingest: %d %s", code, stderr)
			}
			code, stdout, stderr := run(t, nil, append(place, "search", "--resource", "r", "--mode", "lexical", "--top-k", "1000", "harbour lantern")...)
			if code != 0 {
				t.Fatalf("search: exit %d %s", code, stderr)
			}
			rows := tableLines(t, stdout)[1:]
			if got, want := len(rows), n; got != want {
				t.Fatalf("%d rows, want %d", got, want)
			}
			for _, r := range rows {
				if !strings.HasSuffix(r, "…") || !strings.Contains(r, "harbour note ") {
					t.Fatalf("row %q: want a preview of its message, cut", r)
				}
			}
		})
	}
}
