package main

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestOutboxLines: off a terminal the indexing says what it will do, how
// far it is while rows are pending (the outbox polled each interval: 150
// of 300 pending), and that it caught up; a failed run gets no last line.
// The lines are asserted, not their timing: fn returns once the poll has
// run three times.
func TestOutboxLines(t *testing.T) {
	var out bytes.Buffer
	var polls atomic.Int64
	polled := make(chan struct{})
	pending := func() (int64, bool) {
		if polls.Add(1) == 3 {
			close(polled)
		}
		return 150, true
	}
	err := outboxLines(&out, 300, "indexing (lexical, vectors)", true, time.Millisecond, pending, func() error { <-polled; return nil })
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if err != nil || len(lines) < 4 ||
		lines[0] != "indexing (lexical, vectors): 300 messages to index; the data directory is in use until done (a line every 1ms)" ||
		lines[1] != "indexing (lexical, vectors): 150 of 300 messages indexed (50%)" ||
		!strings.HasPrefix(lines[len(lines)-1], "indexing (lexical, vectors): caught up, 300 messages in ") {
		t.Fatalf("%v\n%s", err, out.String())
	}
	out.Reset()
	boom := errors.New("disk gone")
	if err := outboxLines(&out, 300, "indexing", true, time.Hour, pending, func() error { return boom }); err != boom || strings.Contains(out.String(), "caught up") {
		t.Errorf("failed: %v\n%s", err, out.String())
	}
}

// TestReindexLinesOffTerminal: `mnemo reindex` (as ingest's indexing at
// its end, walk38 #3) writes plain progress lines to a standard error that
// is no terminal, where it wrote nothing for the whole indexing.
func TestReindexLinesOffTerminal(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 300, nil)); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	code, _, stderr := run(t, nil, "--dir", dir, "reindex")
	if code != 0 || !strings.HasPrefix(stderr, "reindexing (lexical, vectors): 300 messages to index; the data directory is in use until done (a line every 10s)\n") ||
		!strings.Contains(stderr, "reindexing (lexical, vectors): caught up, 300 messages in ") {
		t.Errorf("reindex: exit %d\n%s", code, stderr)
	}
}

// TestReindexLinesPostgres: on Postgres no command holds a data directory,
// so the plain progress lines do not say one is in use (readme61: a
// `--db` reindex or ingest said "the data directory is in use until
// done"). It skips without MNEMO_TEST_POSTGRES.
func TestReindexLinesPostgres(t *testing.T) {
	env := map[string]string{"MNEMO_DB": pgtest.DSN(t)}
	if code, _, stderr := run(t, env, "ingest", writeJSONL(t, 300, nil)); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	code, _, stderr := run(t, env, "reindex")
	if code != 0 || !strings.HasPrefix(stderr, "reindexing (lexical, vectors): 300 messages to index (a line every 10s)\n") ||
		strings.Contains(stderr, "directory") {
		t.Errorf("reindex: exit %d\n%s", code, stderr)
	}
}
