package main

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSignalAfterResult: walk43 F5. A SIGINT that arrived after vacuum
// had rewritten the file and printed its table, or after expire --dry-run
// had printed its whole answer, while the engine closed, still made the
// exit code 130, so a script would run a vacuum that was done again. A
// command whose result is complete and printed now exits 0; the others,
// and a command that failed, keep 130.
func TestSignalAfterResult(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "hello"}))
	for _, c := range []struct {
		name string
		args []string
		code int // exitAfter's, a SIGINT received while the command ran
	}{
		{"Vacuum", []string{"vacuum"}, 0},
		{"VacuumJSON", []string{"vacuum", "--json"}, 0},
		{"ExpireDryRun", []string{"expire", "--idle", "1s", "--dry-run"}, 0},
		{"ExpireJSON", []string{"expire", "--idle", "1000h", "--json"}, 0},
		{"Threads", []string{"threads"}, 130}, // not marked: as before
		{"VacuumRefused", []string{"vacuum", "extra"}, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut strings.Builder
			m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
				Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
			code := m.Run(context.Background(), append([]string{"--dir", dir}, c.args...))
			if got := m.exitAfter(code, syscall.SIGINT); got != c.code {
				t.Errorf("exit %d after SIGINT (command's %d), want %d\n%s%s", got, code, c.code, out.String(), errOut.String())
			}
			if got := m.exitAfter(code, nil); got != code {
				t.Errorf("exit %d without a signal, want the command's %d", got, code)
			}
		})
	}
}
