package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// runInterrupted runs the command args in-process with its context
// cancelled when it reaches point (interruptAt), as SIGINT cancels it, and
// returns its exit code, standard output and standard error.
func runInterrupted(t *testing.T, point string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reached := false
	interruptAt = func(p string) {
		if p == point {
			reached = true
			cancel()
		}
	}
	defer func() { interruptAt = nil }()
	var out, errOut strings.Builder
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
	code := m.Run(ctx, args)
	if !reached {
		t.Fatalf("%v never reached %s: exit %d\n%s%s", args, point, code, out.String(), errOut.String())
	}
	return code, out.String(), errOut.String()
}

// TestCheckInterrupted: a check stopped by SIGINT (its context cancelled)
// says how far it came and that nothing stored was changed, at each of
// its stages, with and without --json (whose standard output stays
// empty). Before (brief cli45 #3), it said only "interrupted: context
// canceled".
func TestCheckInterrupted(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "hello"}))
	const after = "; no stored message, thread or working memory was changed (indexing done meanwhile stays); run mnemo check again for the whole verdict\n"
	for _, c := range []struct{ point, flag, want string }{
		{"database", "--full", "stopped during SQLite's integrity_check of mnemo.db: nothing was verified"},
		{"open", "--json", "stopped while the data directory opened, after mnemo.db passed SQLite's quick_check: the indexes were not compared with it"},
		// "queued" (indexQueued) has nothing to wait for here: the
		// comparison after it is what the cancel stops.
		{"queued", "--json", "stopped while the database and the indexes were compared, after mnemo.db passed SQLite's quick_check: no verdict on the indexes"},
		{"compare", "--full", "stopped while the database and the indexes were compared, after mnemo.db passed SQLite's integrity_check: no verdict on the indexes"},
		{"ids", "--json", `stopped after the database and the indexes were found to agree, while ids stored as ".", ".." or "erased-…" were looked for: those are not listed`},
	} {
		t.Run(c.point, func(t *testing.T) {
			code, out, stderr := runInterrupted(t, "check:"+c.point, "--dir", dir, "check", c.flag)
			want := "mnemo check: interrupted: " + c.want + after
			if code != 1 || out != "" || !strings.HasSuffix(stderr, want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and a last line %q", code, out, stderr, want)
			}
		})
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Errorf("check after the interrupted ones: exit %d\n%s%s", code, out, stderr)
	}
}
