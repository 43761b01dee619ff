package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchReasonColumn: the text table has a reason column only when
// --range can bring neighbours, and then it says what --json's reason says
// for each row (hit or range). Before, every row of a search without
// --range was labelled "hit", which tells nothing.
func TestSearchReasonColumn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"the garden needs water"}
{"thread":"t","resource":"r","role":"assistant","content":"I will bring the hose"}
{"thread":"t","resource":"r","role":"user","content":"and the tomatoes are ripe"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	search := func(args ...string) (table [][]string, reasons []string) {
		t.Helper()
		base := append([]string{"--dir", dir, "search", "--resource", "r", "--mode", "lexical", "--top-k", "1"}, args...)
		code, out, stderr := run(t, nil, append(base, "garden")...)
		if code != 0 {
			t.Fatalf("search %v: exit %d, %s", args, code, stderr)
		}
		_, next := legendAt(t, out)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[next:] { // after the retrieval line and the scores legend
			table = append(table, strings.Fields(line))
		}
		code, out, stderr = run(t, nil, append(base, "--json", "garden")...)
		var res struct{ Hits []struct{ Reason string } }
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
			t.Fatalf("search --json %v: exit %d, %v, %s", args, code, err, stderr)
		}
		for _, h := range res.Hits {
			reasons = append(reasons, h.Reason)
		}
		return table, reasons
	}
	table, reasons := search()
	if len(table) != 2 || table[0][0] != "thread" || table[1][0] != "t" || strings.Join(reasons, ",") != "hit" {
		t.Errorf("search without --range: table %q, JSON reasons %v; want no reason column", table, reasons)
	}
	table, reasons = search("--range", "1")
	if len(table) != 3 || table[0][0] != "reason" || len(reasons) != 2 {
		t.Fatalf("search --range 1: table %q, JSON reasons %v; want a reason column and 2 rows", table, reasons)
	}
	for i, r := range reasons {
		if table[i+1][0] != r {
			t.Errorf("search --range 1: row %d says %q, --json says %q", i+1, table[i+1][0], r)
		}
	}
}

// TestSearchScoreLegend: the text table says, on a line of its own before
// it, what each score column holds for the search that ran: in hybrid mode
// the fused score, which is standardised and may be negative (-0.850 with
// nothing saying so, before), in a single-channel mode that channel's own
// score. The table itself is unchanged.
func TestSearchScoreLegend(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"the garden needs water"}
{"thread":"t","resource":"r","role":"assistant","content":"I will bring the garden hose"}
{"thread":"t","resource":"r","role":"user","content":"and the tomatoes are ripe"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	// Only the columns that hold a score are explained, and "-" where a
	// column shows one: --mode lexical explained the vector column, all "-".
	for _, c := range []struct {
		args   []string
		legend string
	}{
		{nil, "scores: score: " + standardised + columnsText},
		{[]string{"--fusion", "weighted"}, "scores: score: " + standardised + columnsText},
		{[]string{"--fusion", "rrf"}, "scores: score: " + rrfLegend + columnsText},
		{[]string{"--mode", "lexical"}, "scores: score: the lexical channel's (--mode lexical)" + lexicalText + " · -: no score"},
		{[]string{"--mode", "vector"}, "scores: score: the vector channel's (--mode vector)" + vectorText + " · -: no score"},
	} {
		args := append(append([]string{"--dir", dir, "search", "--resource", "r"}, c.args...), "garden water")
		code, out, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("search %v: exit %d, %s", c.args, code, stderr)
		}
		lines := strings.Split(out, "\n")
		legend, next := legendAt(t, out)
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "retrieval: ") || !strings.HasPrefix(lines[1], "scores: ") || legend != c.legend || next < 0 || !strings.HasPrefix(lines[next], "thread ") {
			t.Errorf("search %v:\n%s\nwant the retrieval line, then %q, then the table", c.args, out, c.legend)
		}
	}
}
