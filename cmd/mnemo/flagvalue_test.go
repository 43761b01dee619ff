package main

import (
	"strings"
	"testing"
)

// TestFlagValueNotNumber: a number or duration flag whose value does not
// parse says what it wants, in a value error (its line and the help
// hint): "--top-k: x is not a whole number". It printed the flag
// package's "invalid value \"x\" for flag --top-k: parse error".
func TestFlagValueNotNumber(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"Int", []string{"search", "--resource", "r", "--top-k", "x", "hi"}, "mnemo search: --top-k: x is not a whole number"},
		{"IntEmpty", []string{"search", "--resource", "r", "--top-k=", "hi"}, "mnemo search: --top-k: '' is not a whole number"},
		{"IntRange", []string{"search", "--resource", "r", "--top-k", "99999999999999999999", "hi"}, "mnemo search: --top-k: 99999999999999999999 is out of range"},
		{"Int64", []string{"messages", "--thread", "t", "--from", "1.5"}, "mnemo messages: --from: 1.5 is not a whole number"},
		{"Uint64", []string{"bench", "--seed", "-1"}, "mnemo bench: --seed: -1 is not a whole number from 0"},
		// Decimal digits only, as the HTTP API's ?limit= (the flag
		// package read 010 as octal 8, 0x9 as 9, 1_0 as 10 and +9 as 9).
		{"IntOctal", []string{"messages", "--thread", "t", "--from", "010"}, "mnemo messages: --from must be a whole number written without leading zeros: 10, not 010"},
		{"IntPlus", []string{"search", "--resource", "r", "--top-k", "+5", "hi"}, "mnemo search: --top-k must be a whole number written without a sign: 5, not +5"},
		{"IntMinusZero", []string{"context", "--thread", "t", "--recent", "-0"}, "mnemo context: --recent must be a whole number written without a sign: 0, not -0"},
		{"IntMinusLeadingZero", []string{"context", "--thread", "t", "--recent", "-01"}, "mnemo context: --recent must be a whole number written without leading zeros: -1, not -01"},
		{"IntHex", []string{"messages", "--thread", "t", "--from", "0x9"}, "mnemo messages: --from: 0x9 is not a whole number"},
		{"IntUnderscore", []string{"messages", "--thread", "t", "--from", "1_0"}, "mnemo messages: --from: 1_0 is not a whole number"},
		{"Uint64LeadingZero", []string{"bench", "--seed", "07"}, "mnemo bench: --seed must be a whole number written without leading zeros: 7, not 07"},
		// --range's numbers too (it read them with strconv.Atoi after
		// strings.TrimSpace, taking 010, +3, ' 1' and '1, 2').
		{"RangeLeadingZero", []string{"search", "--resource", "r", "--range", "010", "hi"}, "mnemo search: --range must be a whole number written without leading zeros: 10, not 010"},
		{"RangePlus", []string{"search", "--resource", "r", "--range", "+3", "hi"}, "mnemo search: --range must be a whole number written without a sign: 3, not +3"},
		{"RangePairSign", []string{"context", "--thread", "t", "--range", "2,+1"}, "mnemo context: --range must be BEFORE,AFTER with whole numbers written without a sign: 2,1, not 2,+1"},
		{"RangeSpace", []string{"search", "--resource", "r", "--range", " 1", "hi"}, `mnemo search: --range must be N or BEFORE,AFTER with whole numbers >= 0, got " 1"`},
		{"RangePairSpace", []string{"search", "--resource", "r", "--range", "1, 2", "hi"}, `mnemo search: --range must be N or BEFORE,AFTER with whole numbers >= 0, got "1, 2"`},
		{"RangeTooLarge", []string{"search", "--resource", "r", "--range", "99999999999999999999", "hi"}, "mnemo search: --range: 99999999999999999999 is out of range"},
		{"Float", []string{"eval", "--vector-weight", "abc", "f"}, "mnemo eval: --vector-weight: abc is not a number"},
		{"Duration", []string{"expire", "--idle", "3"}, "mnemo expire: --idle: 3 is not a duration (such as 90s, 30m or 24h)"},
		{"DurationUnit", []string{"expire", "--idle", "3d"}, "mnemo expire: --idle: 3d is not a duration (such as 90s, 30m or 24h)"},
		// time.ParseDuration refuses it as it refuses "3": it said "is not a duration".
		{"DurationRange", []string{"expire", "--idle", "99999999h"}, "mnemo expire: --idle: 99999999h is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)"},
		{"DurationRangeSum", []string{"expire", "--idle", "2562047h60m"}, "mnemo expire: --idle: 2562047h60m is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			want := c.want + "\nRun 'mnemo help " + c.args[0] + "' for the flags.\n"
			if code != 2 || out != "" || stderr != want {
				t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, stderr, want)
			}
		})
	}
}

// TestEnumFlagListsValues: a flag that takes one of a few words, given
// another, is a value error (exit 2, its line and the help hint) that
// lists the words it takes. Before, ingest --format csv said only
// `unknown --format "csv"`; bench --format csv and eval --format csv
// failed after the run had begun (exit 1), bench's list without auto and
// eval's naming the format as "format"; eval --mode foo listed lexical,
// vector and hybrid, not all.
func TestEnumFlagListsValues(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"IngestFormat", []string{"ingest", "--format", "csv", "f.jsonl"}, `mnemo ingest: unknown --format "csv" (want auto, jsonl, locomo or longmemeval)`},
		{"BenchFormat", []string{"bench", "--format", "csv", "--file", "f.jsonl"}, `mnemo bench: unknown --format "csv" (want auto, jsonl, locomo or longmemeval)`},
		{"EvalFormat", []string{"eval", "--format", "csv", "f.json"}, `mnemo eval: --format must be auto, locomo or longmemeval, got "csv"`},
		{"EvalFormatJSONL", []string{"eval", "--format", "jsonl", "f.json"}, `mnemo eval: --format must be auto, locomo or longmemeval, got "jsonl"`},
		// Detected: it failed after the flags, `evalset: format "jsonl": want locomo or longmemeval` (exit 1).
		{"EvalDetectsJSONL", []string{"eval", "f.jsonl"}, `mnemo eval: f.jsonl is JSONL: eval reads LoCoMo and LongMemEval sets only (it scores their questions); import JSONL with mnemo ingest`},
		{"EvalMode", []string{"eval", "--mode", "foo", "f.json"}, `mnemo eval: --mode must be lexical, vector, hybrid or all, got "foo"`},
		{"SearchMode", []string{"search", "--resource", "r", "--mode", "foo", "q"}, `mnemo search: --mode must be lexical, vector or hybrid, got "foo"`},
		{"SearchFusion", []string{"search", "--resource", "r", "--fusion", "foo", "q"}, `mnemo search: --fusion must be weighted or rrf, got "foo"`},
		{"SearchScope", []string{"search", "--resource", "r", "--scope", "foo", "q"}, `mnemo search: --scope must be thread or resource, got "foo"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			want := c.want + "\nRun 'mnemo help " + c.args[0] + "' for the flags.\n"
			if code != 2 || out != "" || stderr != want {
				t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, stderr, want)
			}
		})
	}
}
