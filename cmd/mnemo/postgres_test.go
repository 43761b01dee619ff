package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestPostgresCLI: the commands a user runs, on Postgres through $MNEMO_DB
// and through --db: ingest a file, list threads, load a context (with its
// memctx record), check, erase a thread and vacuum. No data directory is
// created. It skips without MNEMO_TEST_POSTGRES.
func TestPostgresCLI(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Chdir(t.TempDir())
	env := map[string]string{"MNEMO_DB": dsn}
	file := writeJSONL(t, 120, func(i int) string {
		if i == 7 {
			return " the spare key is under the blue flowerpot"
		}
		return ""
	})
	code, stdout, stderr := run(t, env, "ingest", file)
	if code != 0 || !strings.Contains(stdout, "120 messages stored") {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(t, nil, "--db", dsn, "threads", "--json"); code != 0 || strings.Count(stdout, `"id"`) != 3 {
		t.Fatalf("threads --db: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, env, "context", "--thread", "t0", "--run-id", "run-pg", "--recent", "3", "--json", "--query", "where is the spare key")
	var lc engine.Context
	if code != 0 || json.Unmarshal([]byte(stdout), &lc) != nil || len(lc.Messages) < 3 {
		t.Fatalf("context: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(t, env, "memctx", "run-pg"); code != 0 || !strings.Contains(stdout, "run run-pg") {
		t.Fatalf("memctx: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(t, env, "check"); code != 0 || !strings.HasPrefix(stdout, "ok:") {
		t.Fatalf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	// The vacuum it suggests names the database: a bare 'mnemo vacuum'
	// vacuumed ./mnemo-data, or failed on a missing one (readme54).
	if code, stdout, stderr = run(t, env, "delete", "--thread", "t1", "--yes"); code != 0 || !strings.Contains(stdout, "to vacuum them now, run: mnemo --db "+shellWord(redactDSN(dsn))+" vacuum\n") {
		t.Fatalf("delete: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, env, "vacuum", "--json")
	var res engine.VacuumResult
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Backend != "postgres" || len(res.Tables) < 10 || res.Tables[1].Name != "messages" {
		t.Fatalf("vacuum: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(t, env, "messages", "--thread", "t1"); code != 1 || !strings.Contains(stderr, "not found") {
		t.Fatalf("messages of the erased thread: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr = run(t, env, "--dir", "x", "threads"); code != 2 || !strings.Contains(stderr, "$MNEMO_DB") {
		t.Errorf("--dir with $MNEMO_DB: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, nil, "threads"); code != 1 {
		t.Errorf("threads in the working directory without $MNEMO_DB: exit %d, want 1 (no data directory)", code)
	}
}

// TestPostgresErrorHidesPassword: a database that cannot be reached fails
// the command (exit 1) with a message naming the host, never the password.
func TestPostgresErrorHidesPassword(t *testing.T) {
	code, stdout, stderr := run(t, nil, "--db", "postgres://mnemo:s3cret-pw@127.0.0.1:1/mem?connect_timeout=2", "threads")
	if code != 1 || !strings.Contains(stderr, "127.0.0.1") {
		t.Errorf("exit %d, stderr %q; want 1 naming the host", code, stderr)
	}
	if strings.Contains(stdout+stderr, "s3cret-pw") {
		t.Errorf("the output shows the password: %q", stderr)
	}
}

// TestPostgresCheckFullDigests: on Postgres `check --full` reports a
// message altered outside mnemo (its digest) by thread and seq, says to
// restore a backup rather than salvage (SQLite only), and exits 1; the
// quick check does not read the texts.
func TestPostgresCheckFullDigests(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Chdir(t.TempDir())
	env := map[string]string{"MNEMO_DB": dsn}
	if code, stdout, stderr := run(t, env, "ingest", writeJSONL(t, 10, func(int) string { return "" })); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	pgtest.Exec(t, dsn, `UPDATE messages SET content = upper(content) WHERE seq = 2 AND thread_id = (SELECT MIN(thread_id) FROM messages)`)
	if code, stdout, stderr := run(t, env, "check"); code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := run(t, env, "check", "--full")
	if code != 1 || !strings.Contains(stderr, "message 2 of thread ") || !strings.Contains(stderr, "restore the database from a backup") || strings.Contains(stderr, "mnemo.db") {
		t.Fatalf("check --full: exit %d\n%s%s", code, stdout, stderr)
	}
	// When the indexes or counters disagree with the database, the quick
	// check escalates to the full one, digests included.
	pgtest.Exec(t, dsn, `UPDATE threads SET message_count = message_count + 1 WHERE id = (SELECT MIN(thread_id) FROM messages)`)
	code, stdout, stderr = run(t, env, "check")
	if code != 1 || !strings.Contains(stderr, "message 2 of thread ") || !strings.Contains(stderr, "message_count") || !strings.Contains(stderr, "restore the database from a backup") {
		t.Fatalf("check of a database whose counters disagree: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestPostgresHintPastes: the command a message tells the user to run
// works when pasted, on Postgres whose URL has a password, given by --db
// or $MNEMO_DB: it names the database as --db "$MNEMO_DB", which the
// shell reading it (MNEMO_DB set) gives as the URL, password and all; it
// printed the URL with xxxxx for the password, which failed to connect
// (readme61 LOW 3). With MNEMO_DB unset the pasted command is refused
// saying to set it. The test server trusts its clients, so any password
// connects; none is printed. It skips without MNEMO_TEST_POSTGRES.
func TestPostgresHintPastes(t *testing.T) {
	base := pgtest.DSN(t)
	dsn := strings.Replace(base, "postgres://postgres@", "postgres://postgres:s3cret-pw@", 1)
	if dsn == base {
		t.Skipf("the test DSN %q is not postgres://postgres@…: cannot add a password", base)
	}
	t.Chdir(t.TempDir())
	env := map[string]string{"MNEMO_DB": dsn}
	if code, stdout, stderr := run(t, env, "ingest", writeJSONL(t, 150, func(int) string { return "" })); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	for i, c := range []struct {
		env  map[string]string
		args []string
	}{
		{env, []string{"delete", "--thread", "t1", "--yes"}},
		{nil, []string{"--db", dsn, "delete", "--thread", "t2", "--yes"}},
	} {
		code, stdout, stderr := run(t, c.env, c.args...)
		want := `to vacuum them now, run: mnemo --db "$MNEMO_DB" vacuum` + "\n"
		if code != 0 || !strings.Contains(stdout, want) || strings.Contains(stdout+stderr, "s3cret-pw") {
			t.Fatalf("delete %d: exit %d\n%s%s\nwant %q and no password", i, code, stdout, stderr, want)
		}
		t.Setenv("MNEMO_DB", dsn) // the shell the user pastes into
		words := suggestedWords(t, stdout)
		if code, out, errOut := run(t, nil, words[1:]...); code != 0 {
			t.Errorf("pasted %q: exit %d\n%s%s", words, code, out, errOut)
		}
		t.Setenv("MNEMO_DB", "")
		words = suggestedWords(t, stdout)
		if code, _, errOut := run(t, nil, words[1:]...); code != 2 || !strings.Contains(errOut, `needs MNEMO_DB set to the database's URL`) {
			t.Errorf("pasted %q with MNEMO_DB unset: exit %d %s; want 2 saying to set MNEMO_DB", words, code, errOut)
		}
	}
}
