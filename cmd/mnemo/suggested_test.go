package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// suggestedWords returns the words a shell reads in the command that text
// suggests: the rest of the first line holding "run: mnemo " or ": mnemo
// --", from its "mnemo". It fails t when text suggests none, or wraps one
// in quotes ("'mnemo --"): a command is printed to be pasted as is.
func suggestedWords(t *testing.T, text string) []string {
	t.Helper()
	if strings.Contains(text, "'mnemo --") {
		t.Errorf("a suggested command is wrapped in quotes:\n%s", text)
	}
	for line := range strings.SplitSeq(text, "\n") {
		i := strings.LastIndex(line, "run: mnemo ")
		if i >= 0 {
			i += len("run: ")
		} else if i = strings.LastIndex(line, ": mnemo --"); i >= 0 {
			i += len(": ")
		} else {
			continue
		}
		out, err := exec.Command("sh", "-c", "set -- "+line[i:]+`; for w; do printf '%s\n' "$w"; done`).Output()
		if err != nil {
			t.Fatalf("sh reading %q: %v", line[i:], err)
		}
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}
	t.Fatalf("no suggested command in:\n%s", text)
	return nil
}

// TestSuggestedCommandsPasteAsIs: a command mnemo suggests ends its line,
// unquoted, and names the memory the command ran on, so that pasted as
// printed it runs there. Before, a data directory whose path needs
// quoting nested quotes ("run 'mnemo --dir '/tmp/my dir' check'": read
// as a shell word, the command is two words), and the notes of
// observations, wm set, threads, runs, search, context suggested
// `mnemo threads` without the --dir given (it lists another memory's).
func TestSuggestedCommandsPasteAsIs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my dir")
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"the garden needs water"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	state := filepath.Join(t.TempDir(), "s.md")
	os.WriteFile(state, []byte("# profile\n"), 0o600)
	dest := filepath.Join(t.TempDir(), "my backup")
	threads := []string{"mnemo", "--dir", dir, "threads"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"observations", "--resource", "nobody"}, threads},
		{[]string{"observations", "--thread", "nobody"}, threads},
		{[]string{"wm", "set", "--resource", "ghost", "--markdown", state}, threads},
		{[]string{"threads", "--resource", "nobody"}, threads},
		{[]string{"runs", "--resource", "nobody"}, threads},
		{[]string{"search", "--resource", "nobody", "garden"}, threads},
		{[]string{"search", "--resource", "u1", "--thread", "tt", "garden"}, []string{"mnemo", "--dir", dir, "threads", "--resource", "u1"}},
		{[]string{"context", "--thread", "nope", "--resource", "u1", "--query", "hi"}, threads},
		{[]string{"salvage"}, []string{"mnemo", "--dir", dir, "check"}},
		{[]string{"backup", dest}, []string{"mnemo", "--dir", dest, "check"}},
	} {
		_, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		if got := suggestedWords(t, stdout+stderr); !slices.Equal(got, c.want) {
			t.Errorf("mnemo %q suggests %q, want %q\n%s%s", c.args, got, c.want, stdout, stderr)
		}
	}
	// A salvage interrupted in its swap (the engine's advice).
	path := filepath.Join(dir, engine.DatabaseFile)
	kept := engine.DatabaseFile + ".damaged-20261202T220000Z"
	if b, err := os.ReadFile(path); err != nil || os.WriteFile(filepath.Join(dir, kept), b, 0o600) != nil || os.WriteFile(path+".salvage-swap", []byte(kept+"\n"), 0o600) != nil {
		t.Fatal("write the swap's record", err)
	}
	_, stdout, stderr := run(t, nil, "--dir", dir, "check")
	if got, want := suggestedWords(t, stdout+stderr), []string{"mnemo", "--dir", dir, "salvage"}; !slices.Equal(got, want) {
		t.Errorf("check of a half-swapped directory suggests %q, want %q\n%s%s", got, want, stdout, stderr)
	}
}

// TestAdviceCommandsPasteAsIs: the advice said after a damaged or full
// database, a stored configuration refused, indexing behind, an
// interrupted salvage, each for a data directory whose path needs quoting.
func TestAdviceCommandsPasteAsIs(t *testing.T) {
	const dir = "/tmp/my dir"
	tg := target{dir: dir}
	with := func(f func(w *bytes.Buffer)) string {
		var b bytes.Buffer
		f(&b)
		return b.String()
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"corrupt", with(func(w *bytes.Buffer) { printCorruptAdvice(w, tg, false) }), []string{"mnemo", "--dir", dir, "reindex"}},
		{"corrupt salvage", strings.SplitN(with(func(w *bytes.Buffer) { printCorruptAdvice(w, tg, true) }), "\n", 2)[1], []string{"mnemo", "--dir", dir, "salvage"}},
		{"empty", with(func(w *bytes.Buffer) { printEmptyAdvice(w, tg) }), []string{"mnemo", "--dir", dir, "reindex"}},
		{"no space", noSpaceAdvice(tg), []string{"mnemo", "--dir", dir, "backup", "DEST"}},
		{"stored config", (&storedConfigError{Dir: dir, Err: errors.New("mnemo.json: bad")}).Error(), []string{"mnemo", "--dir", dir, "serve", "--config", "FILE"}},
		{"catching up", with(func(w *bytes.Buffer) { catchUpHint(w, "search", tg, recall.StatusCatchingUp, recall.StatusOK) }), []string{"mnemo", "--dir", dir, "check"}},
		{"reads only", readCatchUpHow("threads", "the rebuild", tg), []string{"mnemo", "--dir", dir, "check"}},
	} {
		if got := suggestedWords(t, c.text); !slices.Equal(got, c.want) {
			t.Errorf("%s: suggests %q, want %q\n%s", c.name, got, c.want, c.text)
		}
	}
}

// TestSuggestedCommandsAsGiven: a suggested command names the memory as
// the user's own command did: with --dir or --db when one was given, with
// neither when the default ./mnemo-data was used. Before, every
// suggestion said "mnemo --dir ./mnemo-data …" to a user who gave no
// flag. $MNEMO_DIR and $MNEMO_DB are still named as flags: a variable set
// for one command (MNEMO_DB=… mnemo delete) is gone when the suggestion
// is pasted (readme54).
func TestSuggestedCommandsAsGiven(t *testing.T) {
	envDir := filepath.Join(t.TempDir(), "from env")
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"the garden needs water"}`+"\n"), 0o600)
	env := map[string]string{"MNEMO_DIR": envDir}
	if code, _, stderr := run(t, env, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	t.Chdir(t.TempDir()) // the default, ./mnemo-data, here
	if code, _, stderr := run(t, nil, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"$MNEMO_DIR", env, []string{"threads", "--resource", "nobody"}, []string{"mnemo", "--dir", envDir, "threads"}},
		{"$MNEMO_DIR", env, []string{"salvage"}, []string{"mnemo", "--dir", envDir, "check"}},
		{"default", nil, []string{"search", "--resource", "u1", "--thread", "tt", "garden"}, []string{"mnemo", "threads", "--resource", "u1"}},
		{"default", nil, []string{"salvage"}, []string{"mnemo", "check"}},
		{"--dir", nil, []string{"--dir", envDir, "salvage"}, []string{"mnemo", "--dir", envDir, "check"}},
		{"--dir", nil, []string{"--dir", engine.DefaultDir, "runs", "--resource", "nobody"}, []string{"mnemo", "--dir", engine.DefaultDir, "threads"}},
	} {
		_, stdout, stderr := run(t, c.env, c.args...)
		if got := suggestedWords(t, stdout+stderr); !slices.Equal(got, c.want) {
			t.Errorf("%s: mnemo %q suggests %q, want %q\n%s%s", c.name, c.args, got, c.want, stdout, stderr)
		}
	}
	// A salvage interrupted in its swap, in the default ./mnemo-data: the
	// engine's advice said "mnemo --dir ./mnemo-data salvage" (dmgm62).
	path := filepath.Join(engine.DefaultDir, engine.DatabaseFile)
	kept := engine.DatabaseFile + ".damaged-20261202T220000Z"
	if b, err := os.ReadFile(path); err != nil || os.WriteFile(filepath.Join(engine.DefaultDir, kept), b, 0o600) != nil || os.WriteFile(path+".salvage-swap", []byte(kept+"\n"), 0o600) != nil {
		t.Fatal("write the swap's record", err)
	}
	_, stdout, stderr := run(t, nil, "check")
	if got, want := suggestedWords(t, stdout+stderr), []string{"mnemo", "salvage"}; !slices.Equal(got, want) {
		t.Errorf("check of a half-swapped default directory suggests %q, want %q\n%s%s", got, want, stdout, stderr)
	}
	// Postgres, chosen by --db or $MNEMO_DB (no database is opened): a
	// URL with a password is named as "$MNEMO_DB", which the shell that
	// reads the pasted line (MNEMO_DB set) gives as the URL; one without
	// as itself (readme61 LOW 3: the URL with xxxxx for the password).
	const dsn = "postgres://ann:s3cret@db.example:5432/mem"
	const nopw = "postgres://ann@db.example:5432/mem?sslmode=disable"
	t.Setenv("MNEMO_DB", dsn)
	for _, c := range []struct {
		name, dbFlag, envDB string
		want                []string
	}{
		{"--db", dsn, "", []string{"mnemo", "--db", dsn, "vacuum"}},
		{"$MNEMO_DB", "", dsn, []string{"mnemo", "--db", dsn, "vacuum"}},
		{"--db without a password", nopw, "", []string{"mnemo", "--db", nopw, "vacuum"}},
		{"$MNEMO_DB without a password", "", nopw, []string{"mnemo", "--db", nopw, "vacuum"}},
	} {
		tg, err := chooseTarget("", c.dbFlag, func(k string) string {
			if k == "MNEMO_DB" {
				return c.envDB
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		line := tg.mnemo("vacuum")
		if got := suggestedWords(t, "run: "+line); !slices.Equal(got, c.want) || strings.Contains(line, "s3cret") {
			t.Errorf("%s: suggests %q, read by sh as %q, want %q and no password", c.name, line, got, c.want)
		}
	}
}
