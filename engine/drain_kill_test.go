package engine_test

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestKillMidDrain kills (SIGKILL) a process appending flat out while its
// drainer indexes, at several moments, and checks the files as the kill
// left them, before anything drains again: every message whose outbox row
// is gone is in the lexical index and has its vector. The drainer writes
// the bleve batch while it embeds and stores the vectors (recall.Indexer);
// a row deleted before the batch was persisted would leave its message
// out of the lexical index for good. Then the store is reopened, drained
// and checked (Check: both indexes match the store).
func TestKillMidDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	st := enginetest.SQLite.NewStore(t)
	dir := st.Config(engine.Config{}).Dir
	log := filepath.Join(t.TempDir(), "append.log")
	rounds := 5
	if raceEnabled {
		rounds = 3 // 73 s for 5 in a -race build on 2 cores
	}
	for round := range rounds {
		spec := procSpec{Role: "append", Store: st.String(), ID: round, Log: log, Seed: uint64(round)}
		target := countAcks(t, log) + 300 + rand.IntN(600)
		cmd, out, _ := startWorker(t, spec, false)
		deadline := time.Now().Add(60 * time.Second)
		for countAcks(t, log) < target && time.Now().Before(deadline) {
			time.Sleep(time.Duration(1+rand.IntN(5)) * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if countAcks(t, log) < target {
			t.Fatalf("round %d: the writer acknowledged %d messages in 60 s\n%s", round, countAcks(t, log), out)
		}
		drained := checkDrained(t, dir)
		t.Logf("round %d: killed after %d acknowledged messages; %d drained", round, countAcks(t, log), drained)
		verifyAfterKill(t, enginetest.SQLite, st, readLog(t, log))
	}
}

// checkDrained checks, on the files of dir as a kill left them, that every
// message without an outbox row is in the lexical index and has a vector
// by procEmbedder; it returns how many messages it checked.
func checkDrained(t *testing.T, dir string) int {
	t.Helper()
	ctx := context.Background()
	lex, err := recall.OpenLexical(filepath.Join(dir, engine.LexicalDir))
	if err != nil {
		t.Logf("lexical index not readable after the kill (Open rebuilds it): %v", err)
		return 0
	}
	indexed, err := lex.IDs(ctx)
	lex.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT m.id, (SELECT COUNT(*) FROM embeddings v WHERE v.message_id = m.id AND v.embedder = ?)
		FROM messages m WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)`, procEmbedder{}.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var vecs int
		if err := rows.Scan(&id, &vecs); err != nil {
			t.Fatal(err)
		}
		if !indexed[id] {
			t.Fatalf("%s has no outbox row but is not in the lexical index", id)
		}
		if vecs != 1 {
			t.Fatalf("%s has no outbox row but %d vectors", id, vecs)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
