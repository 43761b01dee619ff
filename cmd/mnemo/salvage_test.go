package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSalvageCommand: on a directory whose mnemo.db lost a leaf page of
// messages, check fails and points at salvage; salvage reports the lost
// seqs and where the damaged file is kept; check is then ok and lists the
// known losses; a second salvage has nothing to do; a delete warns that
// the kept damaged file is not erased; help lists it; and it
// refuses a Postgres database.
func TestSalvageCommand(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	garblePage(t, path, messageLeaf(t, path))

	code, out, stderr := run(t, nil, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, "salvage") || !strings.Contains(stderr, "from a backup") {
		t.Fatalf("check of the damaged directory: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "salvage")
	for _, want := range []string{"messages", "lost in 1 thread", "thread t (resource r): seqs", "mnemo.db.damaged-", "mnemo check: ok"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("salvage: exit %d, stdout lacks %q\n%s%s", code, want, out, stderr)
		}
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check")
	if code != 0 || !strings.Contains(out, "known losses") || !strings.Contains(out, "thread t (resource r): seqs") || !strings.Contains(out, "kept by a salvage: mnemo.db.damaged-") {
		t.Fatalf("check after salvage: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "salvage", "--json")
	var rep engine.SalvageReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Sound || rep.Damaged != "" {
		t.Fatalf("second salvage: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "salvage", "--force")
	// It lost nothing: its ending names no lost seqs ("no message lost",
	// then "the lost seqs are recorded as known losses" before).
	if code != 0 || strings.Contains(out, "the damage found") || !strings.Contains(out, "found no damage") ||
		!strings.Contains(out, "no message lost") || !strings.Contains(out, "indexes rebuilt; mnemo check: ok\n") || strings.Contains(out, "lost seqs") {
		t.Fatalf("salvage --force of a sound database: exit %d\n%s%s", code, out, stderr)
	}
	// An erasure does not reach the kept damaged file: delete says so.
	code, out, stderr = run(t, nil, "--dir", dir, "delete", "--thread", "t", "--yes")
	if code != 0 || !strings.Contains(stderr, "mnemo.db.damaged-") || !strings.Contains(stderr, "may still hold what was erased") {
		t.Fatalf("delete after salvage: exit %d\n%s%s", code, out, stderr)
	}
	if _, out, _ := run(t, nil, "help"); !strings.Contains(out, "salvage") {
		t.Fatalf("help does not list salvage:\n%s", out)
	}
	code, out, stderr = run(t, nil, "--db", "postgres://nobody@127.0.0.1:1/none", "salvage")
	if code != 1 || !strings.Contains(stderr, "SQLite data directory") {
		t.Fatalf("salvage on Postgres: exit %d\n%s%s", code, out, stderr)
	}
}

// harbourMessages are 200 messages of about 350 bytes, enough for several
// leaf pages of the messages table (messageLeaf).
func harbourMessages() []engine.Message {
	var msgs []engine.Message
	for i := range 200 {
		msgs = append(msgs, engine.Message{Role: "user", Content: fmt.Sprintf("message %d about the harbour at dusk %s", i, strings.Repeat("and more words ", 20))})
	}
	return msgs
}

// messageLeaf returns a leaf page of the messages table in the middle of
// the sound database at path.
func messageLeaf(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page int64
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 5`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return page
}

// garblePage overwrites page (1-based, 4096 bytes) of the file at path.
func garblePage(t *testing.T, path string, page int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := []byte(strings.Repeat("\xa5garbage\x13", 410))[:4096]
	if _, err := f.WriteAt(buf, (page-1)*4096); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFullGarbledOverflow: a long message whose overflow page (the
// rest of its text) was garbled passes SQLite's integrity check; `check`
// is ok, `check --full` compares every message with its digest, names the
// message by thread and seq (not its text), exits 1 and points at
// salvage, which drops it as lost; `check --full` is then ok.
func TestCheckFullGarbledOverflow(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{Role: "user", Content: "a short one"},
		engine.Message{Role: "user", Content: "the long one: " + strings.Repeat("a sentence about the harbour. ", 500)}))
	path := filepath.Join(dir, engine.DatabaseFile)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var page int64
	err = db.QueryRow(`SELECT MAX(pageno) FROM dbstat WHERE name = 'messages' AND pagetype = 'overflow'`).Scan(&page)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("#", 200)), (page-1)*4096+100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Fatalf("quick check: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--full")
	if code != 1 || !strings.Contains(stderr, "message 2 of thread t: its text does not match its stored digest") ||
		!strings.Contains(stderr, "salvage") || strings.Contains(stderr, "harbour") {
		t.Fatalf("check --full: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "salvage"); code != 0 || !strings.Contains(out, "lost in 1 thread") {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check", "--full"); code != 0 {
		t.Fatalf("check --full after salvage: exit %d\n%s%s", code, out, stderr)
	}
}

// TestSalvageInterruptedSwap: a directory whose salvage was interrupted
// after the salvaged file was put in place (the record of the swap still
// beside it) is refused by every command, which points at salvage;
// salvage finishes it (rebuilds the indexes) and check is then ok. It
// neither says "no message lost" nor to delete the damaged file once
// satisfied, only to keep it (it said both: rev70 #7): the interrupted
// salvage's report, which alone would name a loss it could not count,
// was lost.
func TestSalvageInterruptedSwap(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{Role: "user", Content: "hello"}))
	path := filepath.Join(dir, engine.DatabaseFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := engine.DatabaseFile + ".damaged-20261202T220000Z"
	if os.WriteFile(filepath.Join(dir, kept), b, 0o600) != nil || os.WriteFile(path+".salvage-swap", []byte(kept+"\n"), 0o600) != nil {
		t.Fatal("write")
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, "interrupted") || !strings.Contains(stderr, "salvage") || !strings.Contains(stderr, kept) {
		t.Fatalf("check of a half-swapped directory: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "salvage")
	if code != 0 || !strings.Contains(out, "finished an interrupted salvage") || !strings.Contains(out, kept) {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	if strings.Contains(out, "delete it") || strings.Contains(out, "no message lost") || !strings.Contains(out, ": keep it, and the indexes kept beside it, if any: the interrupted salvage's report was lost") {
		t.Fatalf("salvage's advice on the damaged file, whose report of losses was lost, is not only to keep it:\n%s", out)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 0 {
		t.Fatalf("check after salvage: exit %d\n%s%s", code, out, stderr)
	}
}

// TestDatabaseNotFileAdvice: a mnemo.db that is a directory gets advice
// that fits it — move it away and restore a backup (the advice names the
// docs page that says how); salvage cannot read it — not the damaged-file
// advice that suggests mnemo salvage.
func TestDatabaseNotFileAdvice(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	db := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(db, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"threads", "check", "salvage"} {
		code, _, stderr := run(t, nil, "--dir", dir, cmd)
		if code != 1 || !strings.Contains(stderr, "is a directory") || !strings.Contains(stderr, "salvage cannot read it") || !strings.Contains(stderr, `from a backup (how: docs/operations.md, "Backups";`) {
			t.Fatalf("%s: code %d, stderr %s", cmd, code, stderr)
		}
	}
}

// TestCorruptMidCommandAdvice: a command that opened the directory but met
// the damage in a later query (a garbled leaf page of messages, which the
// open does not read) says what to do, as one whose open failed does:
// restore from a backup, or salvage. It printed SQLite's "database disk
// image is malformed" alone.
func TestCorruptMidCommandAdvice(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	garblePage(t, path, messageLeaf(t, path))
	for _, args := range [][]string{
		{"messages", "--thread", "t"},
		{"search", "--resource", "r", "harbour at dusk"},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || !strings.Contains(stderr, "malformed") || !strings.Contains(stderr, "from a backup") || !strings.Contains(stderr, "salvage") {
			t.Errorf("%s on a garbled page: exit %d, want 1 with the advice\n%s%s", args[0], code, out, stderr)
		}
	}
}

// TestServiceLogsEngineWarnings: mnemo serve and mnemo mcp give the engine
// their log, so its warnings reach standard error: here the one a close
// after meeting a damaged page writes (the WAL left as found, for
// salvage). Both opened the engine without a logger, and every engine
// warning (a quarantined index, a failed embedding or eviction, an
// observer behind) went nowhere. The search that meets the damaged page
// answers 503 (server.DatabaseDamagedDetail; a 500 before 281f28d0).
func TestServiceLogsEngineWarnings(t *testing.T) {
	const warning = "the database file was found damaged"
	damaged := func(t *testing.T) string {
		dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
		path := filepath.Join(dir, engine.DatabaseFile)
		garblePage(t, path, messageLeaf(t, path))
		return dir
	}
	t.Run("serve", func(t *testing.T) {
		base, stderr, stop := startServe(t, damaged(t))
		resp, err := http.Post(base+"/v1/search", "application/json", strings.NewReader(`{"resourceId":"r","query":"harbour at dusk"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if code := stop(); resp.StatusCode != http.StatusServiceUnavailable || code != 0 || !strings.Contains(stderr.String(), warning) {
			t.Fatalf("search %d, serve exit %d; stderr lacks %q:\n%s", resp.StatusCode, code, warning, stderr.String())
		}
	})
	t.Run("mcp", func(t *testing.T) {
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"resourceId":"r","query":"harbour at dusk"}}}`,
		}, "\n") + "\n"
		var out, errOut bytes.Buffer
		m := &Main{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return "hash-384"
			}
			return ""
		}}
		if code := m.Run(context.Background(), []string{"--dir", damaged(t), "mcp", "--resources", "r"}); code != 0 || !strings.Contains(errOut.String(), warning) {
			t.Fatalf("mcp exit %d; stderr lacks %q:\n%s\n%s", code, warning, errOut.String(), out.String())
		}
	})
}

// TestSalvageUnreadableHeaderAdvice: a mnemo.db whose header is garbled
// ("file is not a database") has nothing to salvage; salvage says so and
// says to restore a backup, without the advice every other command gives
// for a damaged file, which sent the reader back to mnemo salvage ("Without
// a backup, 'mnemo --dir D salvage' copies what is still readable"), the
// command that had just failed. check still points at salvage.
func TestSalvageUnreadableHeaderAdvice(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 100), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	if code != 1 || !strings.Contains(stderr, "nothing to salvage") || !strings.Contains(stderr, `restore mnemo.db from a backup (how: docs/operations.md, "Backups";`) ||
		strings.Contains(stderr, "Without a backup, salvage copies") {
		t.Fatalf("salvage of a garbled header: exit %d, want 1 with the advice to restore and none to salvage\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, "Without a backup, salvage copies") {
		t.Fatalf("check of a garbled header: exit %d, want 1 pointing at salvage\n%s%s", code, out, stderr)
	}
}

// TestSalvageNamesLostJournal: a salvage that loses the journal's pages
// says what their rows held (run records among them), not only "no
// message lost" (readme59: the run's memctx was gone and nothing said so).
func TestSalvageNamesLostJournal(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()[:20]...))
	path := filepath.Join(dir, engine.DatabaseFile)
	garblePage(t, path, rootPage(t, path, "journal"))
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	for _, want := range []string{"no message lost", "rows of journal were on damaged pages and are lost, with what they held: run records"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("salvage: exit %d, stdout lacks %q\n%s%s", code, want, out, stderr)
		}
	}
	if strings.Contains(out, "rows of messages") || strings.Contains(out, "rows of runs") {
		t.Fatalf("salvage names a table it did not lose rows of:\n%s", out)
	}
}

// rootPage returns the root page of table in the sound database at path.
func rootPage(t *testing.T, path, table string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return page
}

// TestSalvageInteriorCellCount: one garbled byte, the cell count of the
// messages table's root (an interior page), hid every leaf page but its
// right-most child from SQLite, and the salvage kept none of the
// messages (readme63 #2: 0 of 26). The leaves are intact: every message
// is kept from its page and the line after the table says so.
func TestSalvageInteriorCellCount(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0}, (rootPage(t, path, "messages")-1)*4096+4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
	var rep engine.SalvageReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	for _, tb := range rep.Tables {
		if tb.Name == "messages" && (tb.Kept != 200 || tb.FromPages == 0 || len(tb.Unreadable) > 0) {
			t.Fatalf("messages: %+v", tb)
		}
	}
	if rep.LostMessages() != 0 {
		t.Fatalf("lost %+v", rep.Lost)
	}
}
