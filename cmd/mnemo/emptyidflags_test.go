package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyIDFlags: an id flag given as "" (--resource "", what a script's
// --resource "$R" passes when R is unset) is a usage error naming the flag,
// before anything is opened; before, it read as left out, so `mnemo expire
// --idle 1h --resource ""` expired every resource's idle threads, `mnemo
// runs --resource ""` listed every resource's runs and `mnemo search
// --thread ""` searched the whole resource (as GET /v1/runs?resourceId= and
// the MCP tools' "" ids did before they were refused). A required flag
// given as "" is empty too, not missing ("messages needs --thread" left
// the user looking for a flag they had typed), and so is an id argument
// ("RUN_ID is empty"), `mcp --resources ""` (read as left out, it gave the
// client every resource) and the global --dir "" and --db "" (read as left
// out, a write or an erasure landed in ./mnemo-data or $MNEMO_DIR, which
// stays uncreated here), and a file or value flag (checkGiven: serve
// --tokens "" served every request as the operator's), as is context
// --query "" (recall with the newest user message) and --embedder "",
// global or eval's ($MNEMO_EMBEDDER, or auto), and every other file or
// value flag whose "" read as left out (--filter, --fusion, --at, eval's
// --dir and --questions, wm --schema, models --registry, bench's files,
// directories and profiles).
func TestEmptyIDFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"runs", "--resource", ""}, "--resource"},
		{[]string{"runs", "--thread", ""}, "--thread"},
		{[]string{"threads", "--resource", ""}, "--resource"},
		{[]string{"expire", "--idle", "1h", "--resource", ""}, "--resource"},
		{[]string{"expire", "--resource=", "--dry-run"}, "--resource"},
		{[]string{"search", "--resource", "r", "--thread", "", "q"}, "--thread"},
		{[]string{"context", "--thread", "t", "--resource", ""}, "--resource"},
		{[]string{"context", "--thread", "t", "--run-id", ""}, "--run-id"},
		{[]string{"delete", "--thread", "t", "--resource", "", "--yes"}, "--resource"},
		{[]string{"observations", "--thread", "t", "--resource", ""}, "--resource"},
		{[]string{"wm", "get", "--thread", "t", "--resource", ""}, "--resource"},
		// a required flag given as ""
		{[]string{"messages", "--thread", ""}, "--thread"},
		{[]string{"context", "--thread="}, "--thread"},
		{[]string{"context", "--thread", "t", "--replace", "--run-id", ""}, "--run-id"},
		{[]string{"observe", "--thread", ""}, "--thread"},
		{[]string{"observations", "--thread", ""}, "--thread"},
		{[]string{"observations", "--resource", ""}, "--resource"},
		{[]string{"search", "--resource", "", "q"}, "--resource"},
		{[]string{"delete", "--thread", "", "--yes"}, "--thread"},
		{[]string{"delete", "--resource", "", "--yes"}, "--resource"},
		{[]string{"delete", "--message", "", "--yes"}, "--message"},
		{[]string{"wm", "get", "--thread", ""}, "--thread"},
		{[]string{"wm", "history", "--resource", ""}, "--resource"},
		{[]string{"wm", "set", "--thread", "", "-"}, "--thread"},
		// an id argument given as ""
		{[]string{"memctx", ""}, "RUN_ID"},
		{[]string{"replay", ""}, "RUN_ID"},
		{[]string{"mcp", "--resources", ""}, "--resources"},
		// a file or value flag given as "" (read as left out: serve
		// --tokens "" served every request as the operator's; the
		// non-loopback --listen makes the old code exit at once)
		{[]string{"serve", "--listen", "0.0.0.0:0", "--tokens", ""}, "--tokens"},
		{[]string{"serve", "--listen", "0.0.0.0:0", "--config="}, "--config"},
		{[]string{"memctx", "run-1", "--html", ""}, "--html"},
		{[]string{"search", "--queries", ""}, "--queries"},
		{[]string{"replay", "run-1", "--without", ""}, "--without"},
		// read as left out, --query "" recalled with the newest user
		// message and --embedder "" took $MNEMO_EMBEDDER (or auto)
		{[]string{"context", "--thread", "t", "--query", ""}, "--query"},
		{[]string{"context", "--thread", "t", "--top-k", "3", "--query="}, "--query"},
		{[]string{"eval", "--embedder", "", "set.json"}, "--embedder"},
		// read as left out: --filter "" recalled unfiltered, --fusion ""
		// with the default fusion, --at "" at now, --scope "" and --mode
		// "" with the defaults; eval's --dir "" in a scratch directory,
		// --questions "" wrote no file, --format "" detected the format,
		// --mode "" ran one mode; wm set
		// --schema "" took the configured schema, models fetch
		// --registry "" $MNEMO_REGISTRY; bench --file "" ran the
		// synthetic corpus, --work "" a temporary directory, --reuse ""
		// ingested anew, --baseline "" and a profile "" wrote nothing
		// (--batch 0, --markdown and a missing NAME make the old code
		// stop at once on another usage error)
		{[]string{"context", "--thread", "t", "--filter", ""}, "--filter"},
		{[]string{"context", "--thread", "t", "--fusion="}, "--fusion"},
		{[]string{"context", "--thread", "t", "--at", ""}, "--at"},
		{[]string{"search", "--resource", "r", "--filter", "", "q"}, "--filter"},
		{[]string{"search", "--resource", "r", "--fusion", "", "q"}, "--fusion"},
		{[]string{"search", "--resource", "r", "--at=", "q"}, "--at"},
		{[]string{"context", "--thread", "t", "--scope", ""}, "--scope"},
		{[]string{"search", "--resource", "r", "--mode=", "q"}, "--mode"},
		{[]string{"eval", "--format", "", "set.json"}, "--format"},
		{[]string{"eval", "--mode", "", "set.json"}, "--mode"},
		{[]string{"bench", "--batch", "0", "--format", ""}, "--format"},
		{[]string{"eval", "--dir", "", "set.json"}, "--dir"},
		{[]string{"eval", "--questions", "", "set.json"}, "--questions"},
		{[]string{"eval", "--fusion=", "set.json"}, "--fusion"},
		{[]string{"wm", "set", "--thread", "t", "--schema", "", "--markdown"}, "--schema"},
		{[]string{"models", "fetch", "--registry", ""}, "--registry"},
		{[]string{"bench", "--batch", "0", "--file", ""}, "--file"},
		{[]string{"bench", "--batch", "0", "--work="}, "--work"},
		{[]string{"bench", "--batch", "0", "--reuse", ""}, "--reuse"},
		{[]string{"bench", "--batch", "0", "--baseline", ""}, "--baseline"},
		{[]string{"bench", "--batch", "0", "--processes", ""}, "--processes"},
		{[]string{"bench", "--batch", "0", "--cpuprofile", ""}, "--cpuprofile"},
		{[]string{"bench", "--batch", "0", "--loadprofile", ""}, "--loadprofile"},
		{[]string{"bench", "--batch", "0", "--allocprofile", ""}, "--allocprofile"},
		{[]string{"bench", "--batch", "0", "--memprofile", ""}, "--memprofile"},
		{[]string{"bench", "--batch", "0", "--worker", ""}, "--worker"},
		// the global flags that choose where the memory lives
		{[]string{"--dir", "", "threads"}, "--dir"},
		{[]string{"--dir=", "ingest", "-"}, "--dir"},
		{[]string{"--db", "", "threads"}, "--db"},
		{[]string{"--embedder", "", "threads"}, "--embedder"},
		{[]string{"--embedder=", "ingest", "-"}, "--embedder"},
	} {
		args := c.args
		if !strings.HasPrefix(args[0], "-") {
			args = append([]string{"--dir", t.TempDir()}, args...)
		}
		fallback := filepath.Join(t.TempDir(), "fallback")
		code, _, stderr := run(t, map[string]string{"MNEMO_DIR": fallback}, args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.Contains(first, c.flag+" is empty") {
			t.Errorf("mnemo %q: exit %d, first line %q; want exit 2 and %q", c.args, code, first, c.flag+" is empty")
		}
		if _, err := os.Stat(fallback); !os.IsNotExist(err) {
			t.Errorf("mnemo %q: %s exists (%v): the command ran on $MNEMO_DIR", c.args, fallback, err)
		}
	}
}

// TestEmptyNeededFlagAdvice: a flag the command needs, given as "", is not
// told to be left out. `mnemo context --thread ""` said "give an id or
// leave the flag out", and left out the command said "context needs
// --thread". "Leave the flag out" stays where the command runs without it:
// an optional flag, or one of an exactly-one-of pair whose other is given.
func TestEmptyNeededFlagAdvice(t *testing.T) {
	for _, c := range []struct {
		args      []string
		flag      string
		leaveOut  bool   // the advice may be to leave the flag out
		needsText string // else what the error says is needed
	}{
		{[]string{"context", "--thread", ""}, "--thread", false, "context needs --thread"},
		{[]string{"context", "--thread=", "--resource", "r"}, "--thread", false, "context needs --thread"},
		{[]string{"messages", "--thread", ""}, "--thread", false, "messages needs --thread"},
		{[]string{"observe", "--thread", ""}, "--thread", false, "observe needs --thread"},
		{[]string{"observations", "--resource", ""}, "--resource", false, "observations needs exactly one of --thread and --resource"},
		{[]string{"search", "--resource", "", "q"}, "--resource", false, "search needs --resource"},
		{[]string{"delete", "--thread", "", "--yes"}, "--thread", false, "delete needs one of --message, --thread, --resource"},
		{[]string{"delete", "--message", "", "--yes"}, "--message", false, "delete needs one of --message, --thread, --resource"},
		{[]string{"wm", "get", "--thread", ""}, "--thread", false, "wm get needs exactly one of --thread and --resource"},
		{[]string{"wm", "set", "--resource", "", "-"}, "--resource", false, "wm set needs exactly one of --thread and --resource"},
		// left out, these commands run
		{[]string{"context", "--thread", "t", "--resource", ""}, "--resource", true, ""},
		{[]string{"search", "--resource", "r", "--thread", "", "q"}, "--thread", true, ""},
		{[]string{"search", "--queries", "q.jsonl", "--resource", ""}, "--resource", true, ""},
		{[]string{"delete", "--thread", "t", "--resource", "", "--yes"}, "--resource", true, ""},
		{[]string{"delete", "--message", "m", "--thread", "", "--yes"}, "--thread", true, ""},
		{[]string{"wm", "get", "--thread", "t", "--resource", ""}, "--resource", true, ""},
		{[]string{"threads", "--resource", ""}, "--resource", true, ""},
		{[]string{"runs", "--thread", ""}, "--thread", true, ""},
	} {
		args := append([]string{"--dir", t.TempDir()}, c.args...)
		code, _, stderr := run(t, nil, args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.Contains(first, c.flag+" is empty") {
			t.Errorf("mnemo %q: exit %d, first line %q; want exit 2 and %q", c.args, code, first, c.flag+" is empty")
			continue
		}
		if got := strings.Contains(first, "leave the flag out"); got != c.leaveOut {
			t.Errorf("mnemo %q: %q: says to leave the flag out: %v, want %v", c.args, first, got, c.leaveOut)
		}
		if !c.leaveOut && !strings.Contains(first, c.needsText) {
			t.Errorf("mnemo %q: %q does not say %q", c.args, first, c.needsText)
		}
	}
}
