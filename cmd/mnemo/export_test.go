package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// exportSample is a file of two resources, a title, tool calls and
// metadata, with one thread (ana:gone) to erase before exporting.
const exportSample = `{"thread":"ana:trip","resource":"ana","title":"Trip to Porto","id":"m1","role":"user","content":"a train from Lyon","metadata":{"topic":"travel"},"created_at":"2026-03-02T09:00:00.5Z"}
{"thread":"ana:trip","resource":"ana","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"from\":\"Lyon\"}"}}],"created_at":"2026-03-02T09:00:01Z"}
{"thread":"ana:trip","resource":"ana","id":"m3","role":"tool","name":"search","tool_call_id":"c1","content":"TGV 6201","created_at":"2026-03-02T09:00:02Z"}
{"thread":"ana:gone","resource":"ana","id":"g1","role":"user","content":"my secret"}
{"thread":"bob:x","resource":"bob","id":"b1","role":"user","content":"hi <bob> & co","created_at":"2026-03-03T10:00:00Z"}
`

// TestExportRoundTripCLI: mnemo export of a data directory, ingested into
// Postgres, exported again and ingested into a new data directory: the two
// files are byte-identical, `messages --json` of every thread is the same
// in the source and the last target, so are the working-memory states
// (a thread's and a resource's), the erased thread and its state are in
// neither file, and ingesting the file again stores nothing. It skips without
// MNEMO_TEST_POSTGRES.
func TestExportRoundTripCLI(t *testing.T) {
	dsn := pgtest.DSN(t)
	tmp := t.TempDir()
	src, last := filepath.Join(tmp, "src"), filepath.Join(tmp, "last")
	in, file1, file2 := filepath.Join(tmp, "in.jsonl"), filepath.Join(tmp, "one.jsonl"), filepath.Join(tmp, "two.jsonl")
	if err := os.WriteFile(in, []byte(exportSample), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("mnemo %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout
	}
	mustRun("--dir", src, "ingest", in)
	plan, prefs := filepath.Join(tmp, "plan.md"), filepath.Join(tmp, "prefs.json")
	os.WriteFile(plan, []byte("# Trip\n- night train\n"), 0o600)
	os.WriteFile(prefs, []byte(`{"seat":"window"}`), 0o600)
	mustRun("--dir", src, "wm", "set", "--thread", "ana:trip", "--markdown", plan)
	mustRun("--dir", src, "wm", "set", "--thread", "ana:gone", "--markdown", plan)
	mustRun("--dir", src, "wm", "set", "--resource", "bob", "--no-validate", prefs)
	mustRun("--dir", src, "delete", "--thread", "ana:gone", "--yes")
	out := mustRun("--dir", src, "export", "--json", file1)
	var rep struct {
		File                                        string
		Resources, Threads, Messages, WorkingMemory int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.File != file1 || rep.Resources != 2 || rep.Threads != 2 || rep.Messages != 4 || rep.WorkingMemory != 2 {
		t.Fatalf("export --json: %s (%v)", out, err)
	}
	mustRun("--db", dsn, "ingest", "--strict", file1)
	if out := mustRun("--db", dsn, "export", file2); out != "exported 2 resources, 2 threads, 4 messages, 2 working-memory states to "+file2+"\n" {
		t.Errorf("export: %q", out)
	}
	one, _ := os.ReadFile(file1)
	two, _ := os.ReadFile(file2)
	if string(one) != string(two) || strings.Contains(string(one), "secret") {
		t.Fatalf("the files differ, or hold the erased thread:\n%s\n%s", one, two)
	}
	mustRun("--dir", last, "ingest", "--strict", file2)
	for _, th := range []string{"ana:trip", "bob:x"} {
		a, z := mustRun("--dir", src, "messages", "--thread", th, "--json"), mustRun("--dir", last, "messages", "--thread", th, "--json")
		if a != z || !strings.Contains(a, `"id"`) {
			t.Errorf("messages of %s differ:\n%s\n%s", th, a, z)
		}
	}
	for _, who := range [][]string{{"--thread", "ana:trip"}, {"--resource", "bob"}} {
		get := append([]string{"wm", "get", "--raw"}, who...)
		a, z := mustRun(append([]string{"--dir", src}, get...)...), mustRun(append([]string{"--dir", last}, get...)...)
		if a != z || a == "" {
			t.Errorf("wm get %v: %q, want %q", who, z, a)
		}
	}
	if out := mustRun("--dir", last, "threads"); !strings.Contains(out, "Trip to Porto") || strings.Contains(out, "ana:gone") {
		t.Errorf("threads of the target:\n%s", out)
	}
	if out := mustRun("--db", dsn, "ingest", file1); !strings.Contains(out, "0 messages stored, 4 already stored, 0 skipped; 0 working-memory states set, 2 already as given") {
		t.Errorf("ingest again: %s", out)
	}
}

// TestExportRefusals: export writes no file over another, prints --json
// only beside a FILE, creates no data directory, and to standard output
// writes the lines with its summary on standard error.
func TestExportRefusals(t *testing.T) {
	tmp := t.TempDir()
	dir, in := filepath.Join(tmp, "d"), filepath.Join(tmp, "in.jsonl")
	if err := os.WriteFile(in, []byte(exportSample), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := run(t, nil, "--dir", dir, "export", "--thread", "bob:x")
	if code != 0 || stdout != `{"thread":"bob:x","resource":"bob","id":"b1","role":"user","content":"hi <bob> & co","created_at":"2026-03-03T10:00:00Z"}`+"\n" ||
		stderr != "exported 1 resource, 1 thread, 1 message\n" {
		t.Errorf("export to standard output: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--dir", dir, "export", in}, 1, in + " exists: export writes a new file and overwrites none"},
		{[]string{"--dir", dir, "export", "--json"}, 2, "--json prints on standard output"},
		{[]string{"--dir", dir, "export", "--json", "-"}, 2, "--json prints on standard output"},
		{[]string{"--dir", dir, "export", "a", "b"}, 2, "mnemo export: takes one FILE"},
		{[]string{"--dir", dir, "export", "--resource", ""}, 2, "--resource is empty"},
		{[]string{"--dir", dir, "export", "--thread", "nope", filepath.Join(tmp, "x.jsonl")}, 1, `thread not found: "nope"`},
		{[]string{"--dir", filepath.Join(tmp, "none"), "export"}, 1, "not a mnemo data directory"},
		{[]string{"--dir", dir, "export", filepath.Join(tmp, "nodir", "x.jsonl")}, 1, "directory " + filepath.Join(tmp, "nodir") + " does not exist: nothing was written to " + filepath.Join(tmp, "nodir", "x.jsonl")},
		{[]string{"--dir", dir, "export", filepath.Join(in, "x.jsonl")}, 1, in + " is not a directory: nothing was written"},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("mnemo %v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "x.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a failed export left its file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "none")); !os.IsNotExist(err) {
		t.Errorf("export created a data directory: %v", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 2 {
		t.Errorf("left behind in %s: %d entries, want 2 (d, in.jsonl)", tmp, len(ents))
	}
}

// runWithStdin runs mnemo in-process as run does (hash-384), with stdin.
func runWithStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}
	m := &Main{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: getenv}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// TestExportStdoutIngestStdin: `mnemo export | mnemo ingest -` moves
// text a terminal would act on (a bidirectional override, ESC, a lone
// carriage return, a tab, U+2028) whole: on standard output export
// writes such characters as their JSON escapes, the same text, and the
// messages read back equal.
func TestExportStdoutIngestStdin(t *testing.T) {
	tmp := t.TempDir()
	src, dst, in := filepath.Join(tmp, "src"), filepath.Join(tmp, "dst"), filepath.Join(tmp, "in.jsonl")
	line := `{"thread":"t","resource":"r","id":"m1","role":"user","content":"a\u202eb\u001b[31m\rc\td\u2028e","created_at":"2026-03-02T09:00:00Z"}` + "\n"
	if err := os.WriteFile(in, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", src, "ingest", in); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := run(t, nil, "--dir", src, "export")
	if code != 0 || strings.ContainsRune(stdout, '\u202e') || strings.ContainsRune(stdout, 0x1b) {
		t.Fatalf("export: exit %d, %q\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runWithStdin(t, stdout, "--dir", dst, "ingest", "--strict", "-"); code != 0 {
		t.Fatalf("ingest -: exit %d\n%s", code, stderr)
	}
	_, a, _ := run(t, nil, "--dir", src, "messages", "--thread", "t", "--json")
	_, z, _ := run(t, nil, "--dir", dst, "messages", "--thread", "t", "--json")
	if a != z || !strings.Contains(a, `"m1"`) {
		t.Errorf("messages differ:\n%s\n%s", a, z)
	}
}

// TestExportFileCutShort: an export that fails or is interrupted after
// writing leaves neither FILE nor its temporary file; one that completes
// makes FILE, and one whose FILE appeared meanwhile overwrites nothing.
func TestExportFileCutShort(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.jsonl")
	boom := errors.New("disk gone")
	write := func(err error) func(io.Writer) (*importer.ExportReport, error) {
		return func(w io.Writer) (*importer.ExportReport, error) {
			io.WriteString(w, "{}\n")
			return &importer.ExportReport{Messages: 1}, err
		}
	}
	if _, err := exportFile(context.Background(), file, write(boom)); !errors.Is(err, boom) {
		t.Errorf("failed write: %v", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := exportFile(cancelled, file, write(nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
	if _, err := exportFile(context.Background(), file, write(nil)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "{}\n" {
		t.Errorf("FILE holds %q", b)
	}
	if _, err := exportFile(context.Background(), file, write(nil)); err == nil || !strings.Contains(err.Error(), "was created meanwhile") {
		t.Errorf("FILE there: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestIngestWorkingMemoryOnlyKeepsDir: `mnemo export --resource R` of a
// resource with a working-memory state and no thread, ingested into a new
// data directory, sets the state and keeps the directory. Before, ingest
// removed a directory it created that held no message or thread (as it
// does after a refused ingest), and the state with it.
func TestIngestWorkingMemoryOnlyKeepsDir(t *testing.T) {
	tmp := t.TempDir()
	src, dst, prefs, file := filepath.Join(tmp, "src"), filepath.Join(tmp, "dst"), filepath.Join(tmp, "prefs.md"), filepath.Join(tmp, "x.jsonl")
	os.WriteFile(prefs, []byte("# Ana\n- window seat\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", src, "wm", "set", "--resource", "ana", "--markdown", prefs); code != 0 {
		t.Fatal(stderr)
	}
	if code, stdout, stderr := run(t, nil, "--dir", src, "export", "--resource", "ana", file); code != 0 || stdout != "exported 1 resource, 0 threads, 0 messages, 1 working-memory state to "+file+"\n" {
		t.Fatalf("export: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := run(t, nil, "--dir", dst, "ingest", file)
	if code != 0 || !strings.Contains(stdout, "1 working-memory state set") {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, nil, "--dir", dst, "wm", "get", "--raw", "--resource", "ana"); code != 0 || stdout != "# Ana\n- window seat\n" {
		t.Errorf("wm get in the target: exit %d %q %s", code, stdout, stderr)
	}
}

// TestExportInterruptedOpen: an export interrupted while the data
// directory is opening says so and that FILE was not written, where it
// said "interrupted: open …/mnemo.db: read schema version: context
// canceled" (or "count messages: …", as the cancel fell).
func TestExportInterruptedOpen(t *testing.T) {
	tmp := t.TempDir()
	dir, in := filepath.Join(tmp, "d"), filepath.Join(tmp, "in.jsonl")
	if err := os.WriteFile(in, []byte(exportSample), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatal(stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, file := range []string{filepath.Join(tmp, "out.jsonl"), "-"} {
		var out, errOut bytes.Buffer
		m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return "hash-384"
			}
			return ""
		}}
		code := m.Run(ctx, []string{"--dir", dir, "export", file})
		want := "mnemo export: interrupted: nothing was written to " + exportDest(file) + " (the data directory was opening); run the export again\n"
		if code == 0 || errOut.String() != want || out.Len() != 0 { // 130 is main's, from the signal
			t.Errorf("export %s interrupted while opening: exit %d, %q; want %q", file, code, errOut.String(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "out.jsonl")); !os.IsNotExist(err) {
		t.Errorf("FILE made: %v", err)
	}
}

// TestExportFileMode: FILE is made mode 0600 whatever the umask (the
// memory's content; docs/cli.md says so).
func TestExportFileMode(t *testing.T) {
	tmp := t.TempDir()
	dir, in, file := filepath.Join(tmp, "d"), filepath.Join(tmp, "in.jsonl"), filepath.Join(tmp, "out.jsonl")
	if err := os.WriteFile(in, []byte(exportSample), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "export", file); code != 0 {
		t.Fatal(stderr)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("FILE's mode: %v (%v), want 0600", fi.Mode(), err)
	}
}
