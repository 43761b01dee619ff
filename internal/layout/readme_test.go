package layout_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeTestCommand: the test command of the README's "Two commands"
// is a line .ci/run runs as it is written, and it lifts go test's default
// timeout of 10 minutes a package, which the engine's package passes with
// Postgres (4–17 min on 2 cores). The README said `go test ./...` while
// CI set GOFLAGS=-timeout=30m, so the command failed as written where CI
// passed.
func TestReadmeTestCommand(t *testing.T) {
	root := moduleRoot(t)
	cmd := readmeTestCommand(t, readFile(t, root, "README.md"))
	if !strings.Contains(cmd, " -timeout ") {
		t.Errorf("README's test command %q keeps go test's 10-minute timeout a package", cmd)
	}
	for _, line := range strings.Split(readFile(t, root, ".ci/run"), "\n") {
		if strings.TrimSpace(line) == cmd {
			return
		}
	}
	t.Errorf(".ci/run has no line %q, the README's test command", cmd)
}

// readmeTestCommand is the `go test` line of the README's "Two commands"
// section, without its comment.
func readmeTestCommand(t *testing.T, readme string) string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Two commands\n")
	if !ok {
		t.Fatal(`README.md has no "## Two commands" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "go test ") {
			cmd, _, _ := strings.Cut(line, "#")
			return strings.TrimSpace(cmd)
		}
	}
	t.Fatal(`README.md's "Two commands" has no go test line`)
	return ""
}

// readFile returns the text of the module's file at rel.
func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeTourRunID: the README's CLI tour, which runs mnemo memctx and
// mnemo replay on a RUN_ID, says where that id comes from: the line of
// mnemo context's output that names the run (cmd/mnemo's
// TestContextNamesRun checks that line), and mnemo runs. Before, the tour
// used RUN_ID without a word on it.
func TestReadmeTourRunID(t *testing.T) {
	readme := readFile(t, moduleRoot(t), "README.md")
	_, tour, ok := strings.Cut(readme, "\n## A short tour of the CLI\n")
	if !ok {
		t.Fatal(`README.md has no "## A short tour of the CLI" section`)
	}
	tour, _, _ = strings.Cut(tour, "\n## ")
	if !strings.Contains(tour, "RUN_ID") {
		return
	}
	for _, want := range []string{"`run RUN_ID · thread T · resource R · TIME`", "`mnemo runs`"} {
		if !strings.Contains(tour, want) {
			t.Errorf("the README's CLI tour uses RUN_ID without naming where it comes from: lacks %s", want)
		}
	}
}
