package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestParseWithout: --without takes the inspector's spelling of the
// working memory, workingMemory, beside working-memory (one table of names:
// engine.ReplayOptions.LeaveOut); it refused workingMemory as "not
// recalled, observations, working-memory or THREAD:SEQ".
func TestParseWithout(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    engine.ReplayOptions
		wantErr bool
	}{
		{"working-memory", engine.ReplayOptions{WithoutWorkingMemory: true}, false},
		{"workingMemory", engine.ReplayOptions{WithoutWorkingMemory: true}, false},
		{"recalled, observations", engine.ReplayOptions{WithoutRecalled: true, WithoutObservations: true}, false},
		{"recall,a:b:3", engine.ReplayOptions{WithoutRecalled: true, WithoutTurns: []engine.TurnRef{{ThreadID: "a:b", Seq: 3}}}, false},
		{"memory", engine.ReplayOptions{}, true},
		// A thread id that cannot be (a space) is refused; it replayed
		// the run saying the removals asked matched nothing.
		{"a b:3", engine.ReplayOptions{}, true},
		{"recalled,the garden:1", engine.ReplayOptions{}, true},
		// A part named twice, in either spelling.
		{"recalled,recall", engine.ReplayOptions{}, true},
		{"working-memory,workingMemory", engine.ReplayOptions{}, true},
		// A turn named twice, and a seq with a sign or not in decimal
		// (walk60 L1: t1:1,t1:1 was taken; t1:+1 read as seq 1).
		{"t1:1,t1:1", engine.ReplayOptions{}, true},
		{"t1:1, t1:01", engine.ReplayOptions{}, true},
		{"t1:1,t2:1", engine.ReplayOptions{WithoutTurns: []engine.TurnRef{{ThreadID: "t1", Seq: 1}, {ThreadID: "t2", Seq: 1}}}, false},
		{"t1:+1", engine.ReplayOptions{}, true},
		{"t1:-1", engine.ReplayOptions{}, true},
		{"t1:0x1", engine.ReplayOptions{}, true},
	} {
		got, err := parseWithout(c.in)
		if (err != nil) != c.wantErr || (err == nil && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("parseWithout(%q) = %+v, %v; want %+v (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

// TestReplayWithoutRepeated: --without may be given more than once, and a
// part named twice, in either spelling, is a value error naming --without
// (exit 2, nothing opened), as the inspector's ?without=recalled&without=
// recalled is a 400. --without kept only its last value: "--without
// recalled --without recalled" exited 0 and "--without recalled --without
// observations" replayed with the recalled turns in.
func TestReplayWithoutRepeated(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:today", "--run-id", "run-1", "--top-k", "3"); code != 0 {
		t.Fatalf("context exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		without []string
		twice   string // the part the error names; "" for none
	}{
		{[]string{"recalled", "recalled"}, "recalled"},
		{[]string{"working-memory", "workingMemory"}, "working-memory"},
		{[]string{"recall,observations", "recalled"}, "recalled"},
		{[]string{"observations,observations"}, "observations"},
		{[]string{"recalled", "observations"}, ""},
	} {
		args := []string{"--dir", dir, "replay", "run-1", "--json"}
		for _, w := range c.without {
			args = append(args, "--without", w)
		}
		code, out, stderr := run(t, nil, args...)
		if c.twice != "" {
			first, _, _ := strings.Cut(stderr, "\n")
			want := `mnemo replay: --without: "` + c.twice + `" given twice: give each part once`
			if code != 2 || first != want {
				t.Errorf("replay --without %q: exit %d, first line %q; want exit 2, %q", c.without, code, first, want)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("replay --without %q: exit %d: %s", c.without, code, stderr)
		}
		var r struct {
			Removed []struct{ Reason string }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("replay --json: %v: %s", err, out)
		}
		recalled := 0
		for _, x := range r.Removed {
			if x.Reason != "" && x.Reason != "recent" {
				recalled++
			}
		}
		if recalled == 0 {
			t.Errorf("replay --without %q removed no recalled turn: %s", c.without, out)
		}
	}
}
