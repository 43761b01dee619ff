package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCheckDamagedEmbeddings: stored embeddings found damaged by `mnemo
// check` (one of the wrong length that the schema's triggers did not see,
// one holding NaN and +Inf values) are derived data check has already
// handed back for embedding: it exits 1 listing them, says that nothing is
// lost and that the next serve, mcp or check embeds them again (or
// reindex --vectors now), and does not send the user to rebuild the
// indexes; the next check passes. Before, it said "run 'mnemo reindex' to
// rebuild the indexes from the database" for what check had already
// queued.
func TestCheckDamagedEmbeddings(t *testing.T) {
	ctx := context.Background()
	var msgs []engine.Message
	for i := range 20 {
		msgs = append(msgs, engine.Message{ID: fmt.Sprintf("m%02d", i), Role: "user", Content: fmt.Sprintf("note %d about the garden and the tomatoes", i)})
	}
	dir := storedDir(t, engine.Config{}, true, inThreadT(msgs...))
	nan := make([]byte, 4*recall.HashDims)
	for i := range recall.HashDims {
		binary.LittleEndian.PutUint32(nan[4*i:], math.Float32bits(0.05))
	}
	binary.LittleEndian.PutUint32(nan[0:], math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(nan[4:], math.Float32bits(float32(math.Inf(1))))
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE embeddings SET vector = ? WHERE message_id = 'm03'`, []any{[]byte{1, 2, 3, 4}}}, // too short for its dims
		{`DELETE FROM embeddings_suspect`, nil},                                                  // as damage on disk: no trigger saw it
		{`UPDATE embeddings SET vector = ? WHERE message_id = 'm12'`, []any{nan}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			db.Close()
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	if rep := checkJSON(t, code, out, stderr); rep.Action != "none" || len(rep.Problems) != 2 || len(rep.Reembedding) != 2 {
		t.Errorf("check --json after damage: %+v, want action none and the 2 problems being re-embedded\n%s", rep, out)
	}
	for _, want := range []string{"(wrong length; e.g. m03)", "(a NaN or ±Inf value; e.g. m12)", "nothing is lost", "The next mnemo serve, mnemo mcp or mnemo check embeds them again", "To recompute every embedding now, run: mnemo --dir " + dir + " reindex --vectors\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "to rebuild the indexes") {
		t.Errorf("stderr sends the user to rebuild the indexes for what check queued:\n%s", stderr)
	}
	checkListedOnce(t, stderr, "e.g. m03", "2 problems")
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || !strings.Contains(out, "ok:") {
		t.Fatalf("second check: exit %d\n%s%s", code, out, stderr)
	}
}

// TestCheckCappedFindings: SQLite's integrity check stops at 100 findings
// (engine.CheckError.DatabaseCapped); `mnemo check` on a database with
// more damage (here 150 pages whose header's fragmentation count is
// wrong) says "at least 100 problems", not "100 problems". Before, it
// counted the findings it was given as if they were all.
func TestCheckCappedFindings(t *testing.T) {
	const pages = 150
	var msgs []engine.Message
	for i := range pages {
		// About 3 KB a message: one to a page of 4 KiB.
		text := fmt.Sprintf("marker-%03d-end ", i) + strings.Repeat(fmt.Sprintf("turn %d of a long talk about the sea; ", i), 90)
		msgs = append(msgs, engine.Message{ID: fmt.Sprint("m", i), Role: "user", Content: text[:3000]})
	}
	dir := storedDir(t, engine.Config{}, false, inThreadT(msgs...))
	rewriteFile(t, filepath.Join(dir, engine.DatabaseFile), func(b []byte) []byte {
		pageSize := int(binary.BigEndian.Uint16(b[16:18]))
		damaged := map[int]bool{}
		for i := range pages {
			at := bytes.Index(b, []byte(fmt.Sprintf("marker-%03d-end", i)))
			if at < pageSize {
				t.Fatalf("marker %d at %d (page size %d)", i, at, pageSize)
			}
			if p := at / pageSize; !damaged[p] {
				damaged[p] = true
				b[p*pageSize+7] ^= 0x3c // fragmented-bytes count of the page
			}
		}
		if len(damaged) <= 100 {
			t.Fatalf("%d pages damaged, want more than 100", len(damaged))
		}
		return b
	})
	code, out, stderr := run(t, nil, "--dir", dir, "check")
	if code != 1 {
		t.Fatalf("check: exit %d, want 1\n%s%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if got, want := lines[len(lines)-1], "mnemo check: at least 100 problems (listed above)"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	if n := strings.Count(stderr, "Fragmentation"); n != 100 {
		t.Errorf("%d findings listed, want 100 (SQLite's cap):\n%s", n, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check", "--json")
	if rep := checkJSON(t, code, out, stderr); !rep.DatabaseCapped || len(rep.Problems) != 100 || rep.Action != "restore" {
		t.Errorf("check --json: capped %v, %d problems, action %q; want capped, 100, restore", rep.DatabaseCapped, len(rep.Problems), rep.Action)
	}
}
