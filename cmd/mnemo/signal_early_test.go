package main

import (
	"bufio"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// earlyInit is the init trace line (GODEBUG=inittrace=1) of the package
// that catches SIGINT and SIGTERM from the process's start.
const earlyInit = "init github.com/mnemo-go/mnemo/cmd/mnemo/internal/earlysignal "

// TestSignalDuringInit: SIGINT sent while mnemo's packages initialise
// (bleve's scorch, jsonschema: 0.1-0.3 s on a loaded machine, before main
// runs) is noticed as later ones are: exit 130, "interrupt: stopping",
// and the command says it stopped. Before (walk48), the Go runtime's
// default action killed the process with no word said. The signal is
// sent once a package that initialises after the handler's package and
// before the heavy ones has (confusables); the trace also shows the
// handler's package initialised before those.
func TestSignalDuringInit(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, map[string]string{"MNEMO_EMBEDDER": "hash-384"}, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	cmd := cli(t, dir, "threads")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var trace, said []string
	sent := false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "init ") {
			said = append(said, line)
			continue
		}
		trace = append(trace, line)
		if !sent && strings.HasPrefix(line, "init github.com/mtibben/confusables ") {
			sent = true
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(stopBound):
		cmd.Process.Kill()
		t.Fatalf("still running %s after SIGINT", stopBound)
	}
	if !sent {
		t.Fatalf("no init trace of confusables: %q", trace)
	}
	early, heavy := traceIndex(trace, earlyInit), traceIndex(trace, "init github.com/blevesearch/bleve/v2/index/scorch ")
	if early < 0 || heavy >= 0 && heavy < early {
		t.Errorf("the signal handler's package initialised at trace line %d, scorch at %d: want it first", early, heavy)
	}
	notice := regexp.MustCompile(`^mnemo( threads)?: interrupt: stopping \(send it again to stop at once\)$`)
	if code := cmd.ProcessState.ExitCode(); code != 130 || len(said) == 0 || !notice.MatchString(said[0]) {
		t.Fatalf("SIGINT during init: exit %d (%v), standard error %q; want 130 and the notice first", code, cmd.ProcessState, said)
	}
}

// traceIndex is the index of the trace line beginning with prefix, -1 when
// none does.
func traceIndex(trace []string, prefix string) int {
	for i, l := range trace {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}
