package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// firstWrite is a writer that records when it was first written to.
type firstWrite struct {
	mu    sync.Mutex
	b     strings.Builder
	first time.Time
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() {
		w.first = time.Now()
	}
	return w.b.Write(p)
}

// TestPostgresCheckSaysOutboxWait: on Postgres, mnemo check that waits
// for an outbox row another process claimed (a drainer killed while
// embedding: its row's embedding is not stored, its lease ends in 3 s)
// says so on stderr at once, naming the rows and when the lease ends,
// then embeds the row when the lease ends and says ok. Before, it printed
// nothing until the lease ended (after a kill -9 of mnemo ingest: 2 m 0.2
// s of silence). mnemo ingest (its sync at the end), mnemo reindex and
// mnemo eval (the sync after its import: it imports the set into the
// database of $MNEMO_DB) wait the same way and said nothing either. It
// skips without MNEMO_TEST_POSTGRES.
func TestPostgresCheckSaysOutboxWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		out  string // stdout's start
	}{
		{"check", func(*testing.T) []string { return []string{"check"} }, "ok:"},
		{"ingest", func(t *testing.T) []string { return []string{"ingest", newMessages(t, "w")} }, ""},
		{"reindex", func(*testing.T) []string { return []string{"reindex"} }, "reindexed in"},
		{"eval", func(*testing.T) []string { return []string{"eval", "--mode", "lexical", seedLoCoMo} }, seedLoCoMo + " (locomo): "},
	} {
		t.Run(tc.name, func(t *testing.T) { saysOutboxWait(t, tc.args(t), tc.out) })
	}
}

// seedLoCoMo is a LoCoMo set of one conversation (3 turns) and one
// question.
const seedLoCoMo = "../../importer/testdata/seed/locomo.json"

// saysOutboxWait runs args on a new Postgres database whose first
// message's embedding is claimed by a process that died (lease ending in
// leaseWait), and checks the command says that it waits, and why, while
// it waits (a second or more before the lease ends: the eval row imports
// its set first, which took 2.5 s on a loaded CI machine), then succeeds.
func saysOutboxWait(t *testing.T, args []string, out string) {
	dsn := pgtest.DSN(t)
	env := map[string]string{"MNEMO_DB": dsn}
	if code, _, stderr := run(t, env, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	until := time.Now().Add(leaseWait)
	pgtest.Exec(t, dsn, `DELETE FROM embeddings WHERE message_id = (SELECT id FROM messages ORDER BY pk LIMIT 1)`)
	pgtest.Exec(t, dsn, `INSERT INTO outbox (op, message_id, resource_id, attempts, not_before, created_at)
		SELECT 'embed', id, resource_id, 0, $1, $2 FROM messages ORDER BY pk LIMIT 1`, until.UnixMilli(), time.Now().UnixMilli())

	var stdout strings.Builder
	errOut := &firstWrite{}
	getenv := func(k string) string {
		switch k {
		case "MNEMO_DB":
			return dsn
		case "MNEMO_EMBEDDER":
			return "hash-384"
		}
		return ""
	}
	m := &Main{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: errOut, Getenv: getenv}
	start := time.Now()
	code := m.Run(context.Background(), args)
	took := time.Since(start)
	errOut.mu.Lock()
	stderr, said := errOut.b.String(), errOut.first.Sub(start)
	errOut.mu.Unlock()
	want := "mnemo " + args[0] + ": waiting for 1 outbox row another process claimed to embed, until it finishes them or their lease ends (" +
		until.UTC().Format("15:04:05") + " UTC at the latest; a process killed while embedding leaves them to it), then this " + args[0] +
		" embeds what is left; Ctrl-C stops the " + args[0] + " (nothing is lost)\n"
	if code != 0 || !strings.HasPrefix(stdout.String(), out) || stderr != want {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit 0, stdout from %q, stderr %q", args[0], code, stdout.String(), stderr, out, want)
	}
	lease := until.Sub(start)
	if took < lease-500*time.Millisecond || said > lease-time.Second {
		t.Errorf("%s took %v and said it waited after %v; want the lease's wait (%v), said while waiting", args[0], took, said, lease)
	}
}

// leaseWait is how long the dead process's claim of saysOutboxWait's row
// lasts: long enough that a loaded machine's import before the wait
// leaves a second of it.
const leaseWait = 6 * time.Second

// TestPostgresCheckSaysOutboxDrain: on Postgres, mnemo check that first
// indexes many outbox rows no process holds (walk29: a kill -9 of
// reindex --vectors left 9,528, and check printed nothing for ~45 s
// while it embedded them) says so on stderr before it does, then says
// ok; a few rows are indexed without a word. mnemo ingest does the same
// before it stores its input (before, it indexed them in silence at its
// end).
func TestPostgresCheckSaysOutboxDrain(t *testing.T) {
	dsn := pgtest.DSN(t)
	env := map[string]string{"MNEMO_DB": dsn, "MNEMO_EMBEDDER": "hash-384"}
	if code, _, stderr := run(t, env, "ingest", writeJSONL(t, 150, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	requeue := func(n int) {
		t.Helper()
		pgtest.Exec(t, dsn, `DELETE FROM embeddings WHERE message_id IN (SELECT id FROM messages ORDER BY pk LIMIT $1)`, n)
		pgtest.Exec(t, dsn, `INSERT INTO outbox (op, message_id, resource_id, attempts, not_before, created_at)
			SELECT 'embed', id, resource_id, 0, 0, 0 FROM messages ORDER BY pk LIMIT $1`, n)
	}
	for _, tc := range []struct {
		args []string
		rows int
		said bool
		out  string
	}{{[]string{"check"}, 3, false, "ok:"}, {[]string{"check"}, 120, true, "ok:"},
		{[]string{"ingest", newMessages(t, "a")}, 3, false, ""}, {[]string{"ingest", newMessages(t, "b")}, 120, true, ""}} {
		requeue(tc.rows)
		code, stdout, stderr := run(t, env, tc.args...)
		want := fmt.Sprintf("mnemo %s: indexing %d outbox rows first", tc.args[0], tc.rows)
		if code != 0 || !strings.HasPrefix(stdout, tc.out) || strings.Contains(stderr, want) != tc.said || (!tc.said && strings.Contains(stderr, "indexing")) {
			t.Errorf("%s with %d rows queued: exit %d, stdout %q, stderr %q; want exit 0, said %q: %v", tc.args[0], tc.rows, code, stdout, stderr, want, tc.said)
		}
		if code, stdout, _ := run(t, env, "check"); code != 0 {
			t.Errorf("check after %s: exit %d: %s", tc.args[0], code, stdout)
		}
	}
}

// newMessages writes a JSONL file of two messages whose ids begin with
// tag (writeJSONL's are m0, m1…) and returns its path.
func newMessages(t *testing.T, tag string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), tag+".jsonl")
	text := fmt.Sprintf(`{"thread":"%[1]s","resource":"r0","id":"%[1]s-1","role":"user","content":"the spare key"}
{"thread":"%[1]s","resource":"r0","id":"%[1]s-2","role":"assistant","content":"under the blue flowerpot"}
`, tag)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSQLiteSaysOutboxDrain: on SQLite too, mnemo check and mnemo ingest
// that first index a backlog of outbox rows (a process killed before it
// indexed what it stored) say so before they do; a few rows are indexed
// without a word. (SQLite has no lease to wait for: one process holds a
// data directory.)
func TestSQLiteSaysOutboxDrain(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 1200, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	requeue := func(n int) {
		t.Helper()
		db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// More than the drainer's batch (512): the open's drainer may
		// index one before the command counts them.
		if _, err := db.Exec(`INSERT INTO outbox (op, message_id, resource_id, created_at)
			SELECT 'index', id, resource_id, 0 FROM messages ORDER BY rowid LIMIT ?`, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		rows int
		said bool
	}{{[]string{"check"}, 3, false}, {[]string{"check"}, 1200, true}, {[]string{"ingest", newMessages(t, "a")}, 3, false}, {[]string{"ingest", newMessages(t, "b")}, 1200, true}} {
		requeue(tc.rows)
		code, _, stderr := run(t, nil, append([]string{"--dir", dir}, tc.args...)...)
		said := strings.HasPrefix(stderr, "mnemo "+tc.args[0]+": indexing ") && strings.Contains(stderr, " outbox rows first (")
		if code != 0 || said != tc.said || (!tc.said && stderr != "") {
			t.Errorf("%s with %d rows queued: exit %d, stderr %q; want exit 0, the line said: %v", tc.args[0], tc.rows, code, stderr, tc.said)
		}
	}
	if code, stdout, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Errorf("check: exit %d: %s%s", code, stdout, stderr)
	}
}
