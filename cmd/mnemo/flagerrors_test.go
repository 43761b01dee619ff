package main

import (
	"strings"
	"testing"
)

// TestFlagErrors: a flag value a command refuses is a usage error (exit 2)
// whose first line names the command ("mnemo search: …", or "mnemo search
// needs …") and the flag as the user typed it (--top-k, not the API field
// topK), before anything is opened. Before, recall's option errors named
// the API fields and every hint began "mnemo:".
func TestFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		flag string // what the first line must name
	}{
		{[]string{"search", "--resource", "r", "--top-k", "5000", "q"}, "--top-k"},
		{[]string{"search", "--resource", "r", "--threshold", "5", "q"}, "--threshold"},
		{[]string{"search", "--resource", "r", "--range", "200", "q"}, "--range"},
		{[]string{"search", "--resource", "r", "--range", "-1", "q"}, "--range"},
		{[]string{"search", "--resource", "r", "--scope", "x", "q"}, "--scope"},
		{[]string{"search", "--resource", "r", "--mode", "x", "q"}, "--mode"},
		{[]string{"search", "--resource", "r", "--fusion", "x", "q"}, "--fusion"},
		{[]string{"search", "--resource", "r", "--filter", `{"x":1}`, "q"}, "--filter"},
		{[]string{"search", "--resource", "r", "--filter", "nope", "q"}, "--filter"},
		{[]string{"search", "--resource", "r", "--at", "nope", "q"}, "--at"},
		{[]string{"search", "--resource", "r", "--top-k", "x", "q"}, "--top-k"},
		{[]string{"search", "--resource", "bad id", "q"}, "--resource"},
		{[]string{"search", "q"}, "--resource"},
		{[]string{"context", "--thread", "t", "--top-k", "5000"}, "--top-k"},
		{[]string{"context", "--thread", "t", "--mode", "x"}, "--mode"},
		{[]string{"context", "--thread", "t", "--budget", "-1"}, "--budget"},
		{[]string{"context", "--thread", "t", "--run-id", "bad id"}, "--run-id"},
		{[]string{"context", "--thread", "bad id"}, "--thread"},
		{[]string{"context"}, "--thread"},
		{[]string{"messages", "--thread", "t", "--from", "0"}, "--from"},
		{[]string{"messages", "--thread", "bad id"}, "--thread"},
		{[]string{"messages"}, "--thread"},
		{[]string{"runs", "--limit", "0"}, "--limit"},
		{[]string{"runs", "--limit", "1001"}, "--limit"},
		{[]string{"runs", "--thread", "t", "--resource", "r"}, "--thread"},
		{[]string{"replay", "--without", "bogus", "r1"}, "--without"},
		{[]string{"expire", "--idle", "-1h"}, "--idle"},
		{[]string{"ingest", "--format", "x", "f"}, "--format"},
		{[]string{"memctx", "--html", "x", "--json", "r"}, "--json"},
		{[]string{"mcp", "--resources", "a b"}, "--resources"},
		{[]string{"mcp", "--resources", "a,.."}, `--resources: ".." cannot be a client's resource`}, // it was taken: every write refused
		{[]string{"mcp", "--resources", "a,erased-b"}, `--resources: "erased-b" cannot be a client's resource: nothing new may be stored under an id beginning with "erased-"`},
		{[]string{"wm", "set", "--resource", "erased-r", "--markdown", "s.md"}, `--resource "erased-r": no working memory is written under an id beginning with "erased-"`},
		{[]string{"serve", "--listen", "nonsense"}, "--listen"},
		{[]string{"wm", "get", "--thread", "t", "--resource", "r"}, "--thread"},
		{[]string{"wm", "history", "--thread", "t", "--limit", "-1"}, "--limit"},
		{[]string{"bench", "--size", "bogus"}, "--size"},
		{[]string{"bench", "--batch", "0"}, "--batch"},
		{[]string{"eval", "--k", "0", "f"}, "--k"},
		{[]string{"eval", "--mode", "x", "f"}, "--mode"},
		{[]string{"eval", "--vector-weight", "NaN", "f"}, "--vector-weight"},
		{[]string{"delete", "--thread", "t", "--resource", "r"}, "--thread"},
		{[]string{"observations", "--thread", "t", "--resource", "r"}, "--thread"},
		{[]string{"observe", "--thread", "t", "--threshold", "-1"}, "--threshold"},
		{[]string{"observe", "--thread", "t", "--reflect-threshold", "-5"}, "--reflect-threshold"},
		{[]string{"observe", "--thread", "t", "--recent", "-1"}, "--recent must be ≥ 0 turns"}, // it was read as the default 10
		{[]string{"threads", "--bogus"}, "--bogus"},
		{[]string{"threads", "--resource"}, "--resource"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		code, _, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		first, _, _ := strings.Cut(stderr, "\n")
		cmd := "mnemo " + c.args[0]
		if c.args[0] == "wm" {
			cmd += " " + c.args[1]
		}
		if code != 2 || !strings.HasPrefix(first, cmd+":") && !strings.HasPrefix(first, cmd+" ") || !strings.Contains(first, c.flag) {
			t.Errorf("mnemo %s: exit %d, first line %q; want exit 2 and a line beginning %q that names %s", strings.Join(c.args, " "), code, first, cmd, c.flag)
		}
	}
}

// TestGlobalFlagAfterCommand: a global flag given after the command is a
// usage error that says where it goes (before: the flag package's bare
// "flag provided but not defined: -dir").
func TestGlobalFlagAfterCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"threads", "--dir", "d"}, "mnemo threads: --dir is a global flag: put it before the command: mnemo --dir d threads"},
		{[]string{"threads", "--json", "-db=postgres://x"}, "mnemo threads: --db is a global flag: put it before the command: mnemo --db postgres://x threads --json"},
		// Every other word keeps its place (fix52: the hint dropped --listen).
		{[]string{"serve", "--dir", "./x", "--listen", "127.0.0.1:7392"}, "mnemo serve: --dir is a global flag: put it before the command: mnemo --dir ./x serve --listen 127.0.0.1:7392"},
		{[]string{"--embedder", "hash-384", "search", "--resource", "R", "--db", "postgres://x", "a b"}, "mnemo search: --db is a global flag: put it before the command: mnemo --embedder hash-384 --db postgres://x search --resource R 'a b'"},
		{[]string{"serve", "--migrate-under-load", "--listen", ":1"}, "mnemo serve: --migrate-under-load is a global flag: put it before the command: mnemo --migrate-under-load serve --listen :1"},
		{[]string{"messages", "--thread", "t", "--embedder", "hash-384"}, "mnemo messages: --embedder is a global flag: put it before the command: mnemo --embedder hash-384 messages --thread t"},
		{[]string{"wm", "get", "--thread", "t", "--dir", "d"}, "mnemo wm get: --dir is a global flag: put it before the command: mnemo --dir d wm get --thread t"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || first != c.want {
			t.Errorf("mnemo %s: exit %d, first line %q; want 2 and %q", strings.Join(c.args, " "), code, first, c.want)
		}
	}
	// eval has its own --dir: it stays eval's.
	code, _, stderr := run(t, nil, "eval", "--dir", t.TempDir(), "--k", "0", "f")
	if code != 2 || strings.Contains(stderr, "global flag") {
		t.Errorf("mnemo eval --dir: exit %d, %q; want eval's own --dir accepted", code, stderr)
	}
}

// TestStrayArguments: a command that takes no positional argument refuses
// one (exit 2, before anything is opened) instead of ignoring it. Before,
// `mnemo context --thread t what was my booking` loaded the context with
// the newest user message as its query and said nothing of the words, and
// messages, observations, observe, check, reindex and version ignored
// theirs the same way. threads, runs, demo, vacuum, expire, serve, mcp,
// bench, wm get and history and models list said "takes no arguments"
// without what they got, the others ", got [\"extra\"]".
func TestStrayArguments(t *testing.T) {
	for _, args := range [][]string{
		{"context", "--thread", "t", "what", "was", "my", "booking"},
		{"messages", "--thread", "t", "extra"},
		{"observations", "--thread", "t", "extra"},
		{"observe", "--thread", "t", "extra"},
		{"check", "extra"},
		{"reindex", "extra"},
		{"version", "extra"},
		{"threads", "extra"},
		{"runs", "extra"},
		{"demo", "extra"},
		{"vacuum", "extra"},
		{"expire", "extra"},
		{"serve", "extra"},
		{"mcp", "extra"},
		{"bench", "extra"},
		{"wm", "get", "--thread", "t", "extra"},
		{"wm", "history", "--thread", "t", "extra"},
		{"models", "list", "extra"},
	} {
		dir := t.TempDir()
		code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		first, _, _ := strings.Cut(stderr, "\n")
		name := args[0]
		if name == "wm" || name == "models" {
			name += " " + args[1]
		}
		// Every command says the same, naming what it got.
		if want := "mnemo " + name + `: takes no arguments, got ["`; code != 2 || !strings.HasPrefix(first, want) {
			t.Errorf("mnemo %s: exit %d, first line %q; want exit 2 and %q", strings.Join(args, " "), code, first, want)
		}
	}
}

// TestValueErrorNoUsage: a flag or argument whose value broke a rule is
// a usage error (exit 2) said in one line, then where the flags are
// described ("Run 'mnemo help search' for the flags."); the whole usage
// follows only an error of the command line's shape: an unknown flag, a
// flag without its value, a missing or stray argument. Before, every
// value error printed the whole flag list after its line (22 lines for
// search --filter with an unknown operator).
func TestValueErrorNoUsage(t *testing.T) {
	for _, c := range []struct {
		args  []string
		usage bool // the whole usage follows the error
		help  string
	}{
		{[]string{"search", "--resource", "r", "--filter", `{"role":{"$foo":1}}`, "q"}, false, "search"},
		{[]string{"search", "--resource", "r", "--filter", "nope", "q"}, false, "search"},
		{[]string{"search", "--resource", "r", "--top-k", "5000", "q"}, false, "search"},
		{[]string{"search", "--resource", "r", "--top-k", "x", "q"}, false, "search"},
		{[]string{"search", "--resource", "r", "--at", "nope", "q"}, false, "search"},
		{[]string{"search", "--resource", "bad id", "q"}, false, "search"},
		{[]string{"search", "--resource", "", "q"}, false, "search"},
		{[]string{"context", "--thread", "t", "--budget", "-1"}, false, "context"},
		{[]string{"context", "--thread", "t", "--mode", "x"}, false, "context"},
		{[]string{"messages", "--thread", "t", "--from", "0"}, false, "messages"},
		{[]string{"runs", "--limit", "0"}, false, "runs"},
		{[]string{"ingest", "--format", "x", "f"}, false, "ingest"},
		{[]string{"expire", "--idle", "-1h"}, false, "expire"},
		{[]string{"wm", "history", "--thread", "t", "--limit", "-1"}, false, "wm history"},
		{[]string{"replay", "--without", "bogus", "r1"}, false, "replay"},
		{[]string{"threads", "--bogus"}, true, ""},
		{[]string{"threads", "--resource"}, true, ""},
		{[]string{"search", "q"}, true, ""},
		{[]string{"context"}, true, ""},
		{[]string{"messages", "--thread", "t", "extra"}, true, ""},
		{[]string{"runs", "--thread", "t", "--resource", "r"}, true, ""},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		hasUsage := strings.Contains(stderr, "\nusage: mnemo")
		if code != 2 || out != "" || hasUsage != c.usage {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2, usage printed: %v", strings.Join(c.args, " "), code, out, stderr, c.usage)
			continue
		}
		if want := "Run 'mnemo help " + c.help + "' for the flags."; !c.usage && (len(lines) != 2 || lines[1] != want) {
			t.Errorf("mnemo %s: stderr:\n%s\nwant one line, then %q", strings.Join(c.args, " "), stderr, want)
		}
	}
	// The hint's command answers with the flags it names.
	if code, out, _ := run(t, nil, "help", "wm", "history"); code != 0 || !strings.Contains(out, "--limit") {
		t.Errorf("mnemo help wm history: exit %d, %q; want wm history's flags", code, out)
	}
}

// TestFilterOperatorsListed: an unknown operator in --filter is answered
// with every operator the filter takes and where each goes: the comparison
// operators under a field, the logical ones beside the fields. Before, an
// unknown operator under a field listed only $eq … $nin, though the filter
// takes $and, $or and $not too, and one beside the fields listed only those.
func TestFilterOperatorsListed(t *testing.T) {
	const ops = "$eq $ne $gt $gte $lt $lte $in $nin under a field, or $and $or $not beside the fields"
	for _, c := range []struct {
		filter, want string
	}{
		{`{"role":{"$foo":1}}`, `mnemo search: --filter: invalid filter at role ($foo): unknown operator (want ` + ops + `)`},
		{`{"role":{"$or":[{"role":"user"}]}}`, `mnemo search: --filter: invalid filter at role ($or): unknown operator (want ` + ops + `)`},
		{`{"$foo":[]}`, `mnemo search: --filter: invalid filter at $ ($foo): unknown operator (want ` + ops + `)`},
		{`{"$gte":1}`, `mnemo search: --filter: invalid filter at $ ($gte): unknown operator (want ` + ops + `)`},
	} {
		code, _, stderr := run(t, nil, "--dir", t.TempDir(), "search", "--resource", "r", "--filter", c.filter, "q")
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || first != c.want {
			t.Errorf("--filter %s: exit %d, first line\n %q\nwant\n %q", c.filter, code, first, c.want)
		}
	}
}

// TestGlobalFlagError: a global flag the command line gets wrong (before
// the command) is a usage error whose line begins "mnemo: " and spells the
// flag --dir, as every other usage error does, then the usage line and
// where the rest is; -h still prints the usage on standard output. Before,
// it was the flag package's bare "flag needs an argument: -dir", and then
// the whole help, some 40 lines (walk42 #5: mnemo --frobnicate threads).
func TestGlobalFlagError(t *testing.T) {
	const rest = "usage: mnemo [--dir DIR | --db URL] [--embedder NAME] COMMAND [flags] [args]\nRun 'mnemo help' for the global flags and the commands.\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dir"}, "mnemo: flag needs an argument: --dir"},
		{[]string{"--bogus", "version"}, "mnemo: flag provided but not defined: --bogus"},
		{[]string{"--frobnicate", "threads"}, "mnemo: flag provided but not defined: --frobnicate"},
		{[]string{"--dri", "x", "threads"}, "mnemo: flag provided but not defined: --dri (did you mean --dir?)"},
		{[]string{"--version=x"}, `mnemo: invalid boolean value "x" for --version: parse error`},
	} {
		code, stdout, stderr := run(t, nil, c.args...)
		if want := c.want + "\n" + rest; code != 2 || stderr != want || stdout != "" {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr\n%s\nwant 2 and\n%s", strings.Join(c.args, " "), code, stdout, stderr, want)
		}
	}
	code, stdout, stderr := run(t, nil, "--dir", "d", "-h")
	if code != 0 || !strings.HasPrefix(stdout, "usage: mnemo ") || stderr != "" {
		t.Errorf("mnemo --dir d -h: exit %d, stdout %q, stderr %q; want 0 and the usage on standard output", code, stdout, stderr)
	}
}

// TestSubcommandMissing: a command of subcommands given none is a usage
// error whose first line says what it needs, then the usage. Before, mnemo
// wm printed its usage alone, with no "mnemo wm: " line.
func TestSubcommandMissing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"wm"}, "mnemo wm: needs a subcommand: get, history or set"},
		{[]string{"models"}, "mnemo models: needs a subcommand: fetch or list"},
	} {
		code, _, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
		first, rest, _ := strings.Cut(stderr, "\n")
		if code != 2 || first != c.want || !strings.Contains(rest, "usage") {
			t.Errorf("mnemo %s: exit %d, first line %q; want 2, %q then the usage", strings.Join(c.args, " "), code, first, c.want)
		}
	}
}

// TestVersionFlagArguments: mnemo --version is mnemo version, whose
// arguments it refuses alike; it printed the version and ignored them
// (mnemo --version extra, mnemo --version threads: exit 0).
func TestVersionFlagArguments(t *testing.T) {
	for _, args := range [][]string{{"--version", "extra"}, {"--version", "threads"}} {
		code, stdout, stderr := run(t, nil, args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if want := `mnemo version: takes no arguments, got ["` + args[1] + `"]`; code != 2 || first != want || stdout != "" {
			t.Errorf("mnemo %s: exit %d, stdout %q, first line %q; want 2 and %q", strings.Join(args, " "), code, stdout, first, want)
		}
	}
	if code, stdout, _ := run(t, nil, "--version"); code != 0 || !strings.HasPrefix(stdout, "mnemo ") {
		t.Errorf("mnemo --version: exit %d, %q", code, stdout)
	}
}

// TestUnknownFlagNear: a misspelt flag of a command, one or two edits from
// one it defines, is told the flag it most likely meant on the error's
// line, before the usage, and so is another tool's name for one it defines
// (--addr for --listen); a flag near none gets no guess. Before, `mnemo
// serve --listne :0` was told only that --listne is not defined (cli56).
func TestUnknownFlagNear(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listne", ":0"}, "mnemo serve: flag provided but not defined: --listne (did you mean --listen?)"},
		{[]string{"search", "--top-kk", "3", "q"}, "mnemo search: flag provided but not defined: --top-kk (did you mean --top-k?)"},
		{[]string{"threads", "--resorce", "r"}, "mnemo threads: flag provided but not defined: --resorce (did you mean --resource?)"},
		{[]string{"wm", "get", "--thred", "t"}, "mnemo wm get: flag provided but not defined: --thred (did you mean --thread?)"},
		{[]string{"serve", "--bogus"}, "mnemo serve: flag provided but not defined: --bogus"},
		// Other tools' names for a flag (walk60 L5).
		{[]string{"serve", "--addr", ":0"}, "mnemo serve: flag provided but not defined: --addr (did you mean --listen?)"},
		{[]string{"serve", "--port=7081"}, "mnemo serve: flag provided but not defined: --port (did you mean --listen?)"},
		{[]string{"search", "--limit", "3", "q"}, "mnemo search: flag provided but not defined: --limit (did you mean --top-k?)"},
		{[]string{"threads", "--port", "1"}, "mnemo threads: flag provided but not defined: --port"},
	} {
		code, stdout, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || stdout != "" || first != c.want {
			t.Errorf("mnemo %s: exit %d, stdout %q, first line of stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stdout, first, c.want)
		}
	}
}
