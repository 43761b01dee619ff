package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/earlysignal"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// The tests in this file run the built binary, as a user does: signals,
// exit codes, two processes on one directory.

var (
	cliOnce sync.Once
	cliDir  string // holds the binary; removed by TestMain
	cliPath string
	cliErr  error
)

// TestMain runs the tests with a private temporary directory: what a test
// (or a command it runs, such as demo) leaves behind fails the package.
func TestMain(m *testing.M) {
	earlysignal.Stop() // no main reads its channel: Ctrl-C must stop the tests
	tmpDone := enginetest.PrivateTempDir()
	code := m.Run()
	if cliDir != "" {
		os.RemoveAll(cliDir)
	}
	if err := tmpDone(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// buildCLI builds cmd/mnemo once per test binary and returns its path.
func buildCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		if cliDir, cliErr = os.MkdirTemp("", "mnemo-cli-test-"); cliErr != nil {
			return
		}
		cliPath = filepath.Join(cliDir, "mnemo")
		out, err := exec.Command("go", "build", "-o", cliPath, ".").CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// cli returns a command running the built binary on dir with hash-384.
func cli(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(buildCLI(t), append([]string{"--dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "MNEMO_EMBEDDER=hash-384")
	return cmd
}

// writeJSONL writes n user messages over threads of 50 messages, resource
// "r<thread mod 5>", and returns the file's path.
func writeJSONL(t *testing.T, n int, extra func(i int) string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "msgs.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	words := strings.Fields("refund train ticket porto lyon sister hotel cat allergy booking window coach seat night morning weather garden tomato recipe invoice")
	for i := range n {
		th := i / 50
		text := fmt.Sprintf("%s %s %s note %d", words[i%len(words)], words[(i*7)%len(words)], words[(i*3+th)%len(words)], i)
		if extra != nil {
			text += extra(i)
		}
		fmt.Fprintf(w, `{"thread":"t%d","resource":"r%d","id":"m%d","role":"user","content":%q}`+"\n", th, th%5, i, text)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
