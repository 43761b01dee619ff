package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
// s of silence). It skips without MNEMO_TEST_POSTGRES.
func TestPostgresCheckSaysOutboxWait(t *testing.T) {
	dsn := pgtest.DSN(t)
	env := map[string]string{"MNEMO_DB": dsn}
	if code, _, stderr := run(t, env, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	until := time.Now().Add(3 * time.Second)
	pgtest.Exec(t, dsn, `DELETE FROM embeddings WHERE message_id = (SELECT id FROM messages ORDER BY pk LIMIT 1)`)
	pgtest.Exec(t, dsn, `INSERT INTO outbox (op, message_id, resource_id, attempts, not_before, created_at)
		SELECT 'embed', id, resource_id, 0, $1, $2 FROM messages ORDER BY pk LIMIT 1`, until.UnixMilli(), time.Now().UnixMilli())

	var out strings.Builder
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
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: errOut, Getenv: getenv}
	start := time.Now()
	code := m.Run(context.Background(), []string{"check"})
	took := time.Since(start)
	errOut.mu.Lock()
	stderr, said := errOut.b.String(), errOut.first.Sub(start)
	errOut.mu.Unlock()
	want := "mnemo check: waiting for 1 outbox row another process claimed to embed, until it finishes them or their lease ends (" +
		until.UTC().Format("15:04:05") + " UTC at the latest;"
	if code != 0 || !strings.HasPrefix(out.String(), "ok:") || !strings.Contains(stderr, want) {
		t.Fatalf("check: exit %d, stdout %q, stderr %q; want ok and %q", code, out.String(), stderr, want)
	}
	if took < 2*time.Second || said > 1500*time.Millisecond {
		t.Errorf("check took %v and said it waited after %v; want the lease's wait (~3 s), said at once", took, said)
	}
}

// TestPostgresCheckSaysOutboxDrain: on Postgres, mnemo check that first
// indexes many outbox rows no process holds (walk29: a kill -9 of
// reindex --vectors left 9,528, and check printed nothing for ~45 s
// while it embedded them) says so on stderr before it does, then says
// ok; a few rows are indexed without a word.
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
		rows int
		said bool
	}{{3, false}, {120, true}} {
		requeue(tc.rows)
		code, stdout, stderr := run(t, env, "check")
		want := fmt.Sprintf("mnemo check: indexing %d outbox rows first", tc.rows)
		if code != 0 || !strings.HasPrefix(stdout, "ok:") || strings.Contains(stderr, want) != tc.said || (!tc.said && strings.Contains(stderr, "indexing")) {
			t.Errorf("check with %d rows queued: exit %d, stdout %q, stderr %q; want ok, said %q: %v", tc.rows, code, stdout, stderr, want, tc.said)
		}
	}
}
