package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestOpenInterrupted: a command stopped by SIGINT while the data
// directory opens (its context cancelled as engine.Open starts: no timing
// race) says where it stopped and that nothing stored changed, for every
// command that shares the open; check and delete keep their own words.
// Before, `timeout -s INT 0.35 mnemo vacuum` printed "interrupted: context
// canceled" or "read the directory's embedder: … context canceled".
func TestOpenInterrupted(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "hello"}))
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	said := "interrupted: stopped while opening " + dir + ": nothing stored was changed; run the command again\n"
	for _, c := range []struct {
		args []string
		want string // the end of standard error
	}{
		{[]string{"vacuum"}, said},
		{[]string{"threads"}, said},
		{[]string{"messages", "--thread", "t"}, said},
		{[]string{"search", "--resource", "r", "hello"}, said},
		{[]string{"context", "--thread", "t"}, said},
		{[]string{"runs"}, said},
		{[]string{"reindex"}, said},
		{[]string{"wm", "get", "--thread", "t"}, said},
		{[]string{"ingest", writeJSONL(t, 2, nil)}, "interrupted: nothing was stored (the data directory was opening); run the same ingest again\n"},
		{[]string{"delete", "--thread", "t", "--yes"}, "interrupted: nothing was erased (stopped while the data directory was opening); run the same delete again to erase it\n"},
		{[]string{"check"}, "interrupted: stopped while the data directory opened, after mnemo.db passed SQLite's quick_check: the indexes were not compared with it; no stored message, thread or working memory was changed (indexing done meanwhile stays); run mnemo check again for the whole verdict\n"},
	} {
		code, _, stderr := runInterrupted(t, "open", append([]string{"--dir", dir}, c.args...)...)
		name := c.args[0]
		if name == "wm" {
			name = "wm get"
		}
		if want := "mnemo " + name + ": " + c.want; code != 1 || !strings.HasSuffix(stderr, want) && !strings.HasSuffix(stderr, strings.Replace(want, dir, abs, 1)) {
			t.Errorf("mnemo %q: exit %d, stderr %q; want exit 1 and a last line %q", c.args, code, stderr, want)
		}
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "messages", "--thread", "t"); code != 0 || !strings.Contains(out, "hello") {
		t.Errorf("messages after the interrupted commands: exit %d\n%s%s", code, out, stderr)
	}
}
