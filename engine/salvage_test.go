package engine_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
)

// salvageFixture writes a memory with three threads of 150 messages each
// (enough for tens of leaf pages), observations of one thread, working
// memory written by a tool call and memctx records, and returns its
// directory. With liveCopy the directory returned is a copy taken while
// the engine still had recent appends in its WAL (a crash image with
// mnemo.db-wal beside it); otherwise the engine was closed.
func salvageFixture(t testing.TB, liveCopy bool) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	srv := openaitest.New(t, openaitest.WithChat(observerModel))
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv)}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	words := strings.Fields("refund train tomato walrus lisbon invoice garden river piano coffee lantern harbour")
	for _, th := range []string{"t1", "t2", "t3"} {
		var msgs []engine.Message
		for i := range 150 {
			text := fmt.Sprintf("%s message %d about the %s and the %s; %s", th, i, words[i%len(words)], words[(i*7)%len(words)], strings.Repeat("padding text ", 15))
			msgs = append(msgs, engine.Message{Role: []string{engine.RoleUser, engine.RoleAssistant}[i%2], Content: text})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	long := "a long message about the walrus: " + strings.Repeat("a sentence that goes on and on. ", 400)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: "r", Messages: []engine.Message{user("long", long)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Observe(ctx, "t1", observe.Options{Force: true, NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.HandleToolCall(ctx, "run-wm", "t2", "r", openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"name":"Ana"}`)); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("run-%d", i), ThreadID: "t3", RecentN: 3, Recall: &recall.Options{TopK: 2}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if !liveCopy {
		return dir
	}
	// Everything so far into mnemo.db, so that the WAL holds only the late
	// append and a page garbled in the main file is not hidden by a newer
	// copy in the WAL.
	truncateWAL(t, filepath.Join(dir, engine.DatabaseFile))
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{user("late", "a late message about the walrus")}}); err != nil {
		t.Fatal(err)
	}
	cp := t.TempDir()
	for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cp, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cp
}

// truncateWAL copies the whole WAL of the database at path into the file
// and empties it (PRAGMA wal_checkpoint(TRUNCATE)) while an engine has it
// open, trying again for up to 10 s while the checkpoint is blocked: the
// engine's drainer checkpoints after each batch (checkpointAfterDrain),
// and a checkpoint that finds another running does nothing and says so
// only in its busy column ([1 -1 -1]), not as an error. Left as it was,
// the WAL kept every page written since the engine opened, newer copies
// of the pages a test garbles in the main file, which then hid the damage
// (the salvage found the database sound: 2 of 50 runs of
// TestSalvageDiskFull failed with "no kept file after the swap").
func truncateWAL(t testing.TB, path string) {
	t.Helper()
	raw := openRaw(t, path)
	defer raw.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var busy, logFrames, done int
		if err := raw.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL checkpoint still blocked after 10 s (busy %d, frames %d, copied %d)", busy, logFrames, done)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rowDump is every row of every table: table → rowid → the row printed.
type rowDump map[string]map[int64]string

// dumpRows reads every row of the database at path (a sound one).
func dumpRows(t testing.TB, path string) rowDump {
	t.Helper()
	db := openRaw(t, path)
	defer db.Close()
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	out := rowDump{}
	for _, tb := range tables {
		if tb == "message_calls" { // no rowid; derived from messages by triggers
			checkMessageCalls(t, db)
			continue
		}
		out[tb] = map[int64]string{}
		rows, err := db.Query(`SELECT rowid, * FROM "` + tb + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out[tb][vals[0].(int64)] = fmt.Sprintf("%q", vals[1:])
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("dump %s: %v", tb, err)
		}
		rows.Close()
	}
	return out
}

// checkMessageCalls fails t unless db's message_calls holds exactly the
// calls its assistant messages made (the triggers of schema 17 keep it so;
// a salvage rebuilds it through them).
func checkMessageCalls(t testing.TB, db *sql.DB) {
	t.Helper()
	const made = `SELECT m.thread_id, json_extract(j.value, '$.id'), m.seq FROM messages m, json_each(m.tool_calls) j
		WHERE m.role = 'assistant' AND m.tool_calls IS NOT NULL AND j.type = 'object' AND json_type(j.value, '$.id') = 'text'`
	const stored = `SELECT thread_id, call_id, seq FROM message_calls`
	for _, q := range []string{made + ` EXCEPT ` + stored, stored + ` EXCEPT ` + made} {
		var thread, call string
		var seq int64
		switch err := db.QueryRow(q+` LIMIT 1`).Scan(&thread, &call, &seq); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			t.Fatalf("message_calls: %v", err)
		default:
			t.Errorf("message_calls and the calls of messages differ: (%s, %s, %d) from %q", thread, call, seq, q)
		}
	}
}

// openRaw opens a SQLite file with no pragma of mnemo's.
func openRaw(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// soundRows dumps the rows of dir's database as SQLite sees them before
// the damage (with its WAL), reading a copy.
func soundRows(t *testing.T, dir string) rowDump {
	t.Helper()
	cp := t.TempDir()
	for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			os.WriteFile(filepath.Join(cp, f), b, 0o600)
		}
	}
	return dumpRows(t, filepath.Join(cp, engine.DatabaseFile))
}

// garbleOverflow writes 200 bytes of '#' into the last overflow page of
// the messages table in the database file at path: the rest of a long
// message's text, which SQLite's own checks never read.
func garbleOverflow(t testing.TB, path string) {
	t.Helper()
	pages, _ := pagesOf(t, path, "messages", "overflow")
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte("#"), 200), (pages[len(pages)-1]-1)*4096+100); err != nil {
		t.Fatal(err)
	}
}

// pagesOf returns the pages (and their cell counts) of b-tree name of the
// given dbstat page type ("leaf", "internal") in the sound file at path
// (with its WAL, left as it is).
func pagesOf(t testing.TB, path, name, typ string) (pages []int64, cells []int) {
	t.Helper()
	// Read a copy: closing SQLite on the file itself would fold its WAL
	// into it and remove it.
	cp := filepath.Join(t.TempDir(), engine.DatabaseFile)
	for _, suffix := range []string{"", "-wal"} {
		if b, err := os.ReadFile(path + suffix); err == nil {
			os.WriteFile(cp+suffix, b, 0o600)
		}
	}
	db := openRaw(t, cp)
	defer db.Close()
	rows, err := db.Query(`SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno`, name, typ)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		var n int
		rows.Scan(&p, &n)
		pages, cells = append(pages, p), append(cells, n)
	}
	return pages, cells
}

// garble overwrites page (1-based) of the file at path with random bytes.
func garble(t testing.TB, path string, page int64, seed uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	r := rand.New(rand.NewPCG(seed, uint64(page)))
	for i := range buf {
		buf[i] = byte(r.UintN(256))
	}
	if _, err := f.WriteAt(buf, (page-1)*4096); err != nil {
		t.Fatal(err)
	}
}

// garbleLeaf garbles a leaf page of messages in the database file at path
// (pages[len/3] in page order, or the next) that has no copy in its WAL,
// where a newer copy of the page would hide the damage, and returns it.
func garbleLeaf(t testing.TB, path string, seed uint64) int64 {
	t.Helper()
	pages, _ := pagesOf(t, path, "messages", "leaf")
	inWAL := walPages(t, path+"-wal")
	for _, p := range pages[len(pages)/3:] {
		if !inWAL[p] {
			garble(t, path, p, seed)
			return p
		}
	}
	t.Fatalf("every leaf page of messages from the third on has a copy in the WAL (%d pages there)", len(inWAL))
	return 0
}

// walPages returns the pages that the frames of the WAL file at path
// (written by this run of the database: the salt of its header) hold.
func walPages(t testing.TB, path string) map[int64]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	if len(b) < 32 {
		return out
	}
	frame := 24 + int(binary.BigEndian.Uint32(b[8:12]))
	for off := 32; off+frame <= len(b); off += frame {
		if !bytes.Equal(b[off+8:off+16], b[16:24]) {
			break // a frame of an earlier run of the WAL: not read
		}
		out[int64(binary.BigEndian.Uint32(b[off:off+4]))] = true
	}
	return out
}

func fileSum(t testing.TB, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// salvageCase damages the fixture's database at path and returns what
// may be lost: the tables whose rows may go missing (besides the orphans
// of lost messages), and, when known, the exact count of messages rows
// lost (-1: not known).
type salvageCase struct {
	name   string
	live   bool
	damage func(t *testing.T, path string) (tables []string, lostMessages int)
}

var salvageCases = []salvageCase{
	{name: "MessagesLeaf", damage: func(t *testing.T, path string) ([]string, int) {
		pages, cells := pagesOf(t, path, "messages", "leaf")
		i := len(pages) / 2
		garble(t, path, pages[i], 1)
		return []string{"messages"}, cells[i]
	}},
	{name: "MessagesLeafWithWAL", live: true, damage: func(t *testing.T, path string) ([]string, int) {
		garbleLeaf(t, path, 2)
		return []string{"messages"}, -1
	}},
	{name: "MessagesInterior", damage: func(t *testing.T, path string) ([]string, int) {
		// The leaves below it are intact: read from their pages.
		pages, _ := pagesOf(t, path, "messages", "internal")
		garble(t, path, pages[0], 3)
		return nil, 0
	}},
	{name: "MessagesInteriorCellCount", damage: func(t *testing.T, path string) ([]string, int) {
		// One byte: the cell count of the root, so that SQL finds no
		// leaf but its right-most child (readme63 #2: every message lost).
		pages, _ := pagesOf(t, path, "messages", "internal")
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte{0}, (pages[0]-1)*4096+4); err != nil {
			t.Fatal(err)
		}
		return nil, 0
	}},
	{name: "MessagesOverflow", damage: func(t *testing.T, path string) ([]string, int) {
		// The text on an overflow page is checked by nothing of SQLite's:
		// the row reads whole, garbled; its digest tells.
		garbleOverflow(t, path)
		return []string{"messages"}, 1
	}},
	{name: "IndexPage", damage: func(t *testing.T, path string) ([]string, int) {
		pages, _ := pagesOf(t, path, "messages_by_resource", "leaf")
		garble(t, path, pages[0], 4)
		return nil, 0
	}},
	{name: "JournalLeaf", damage: func(t *testing.T, path string) ([]string, int) {
		pages, _ := pagesOf(t, path, "journal", "leaf")
		garble(t, path, pages[len(pages)/2], 5)
		return []string{"journal"}, 0
	}},
	{name: "Truncated", damage: func(t *testing.T, path string) ([]string, int) {
		fi, _ := os.Stat(path)
		if err := os.Truncate(path, fi.Size()*3/5/4096*4096); err != nil {
			t.Fatal(err)
		}
		return []string{"*"}, -1
	}},
}

// TestSalvage damages a real database in several ways, salvages it and
// checks: the damaged file is kept unchanged, no row is invented, every
// row off the damaged pages is kept, the lost messages are recorded as
// known losses, the directory checks ok and serves LoadContext, search
// and appends (after the highest seq), and a second salvage is a no-op.
func TestSalvage(t *testing.T) {
	for _, tc := range salvageCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := salvageFixture(t, tc.live)
			path := filepath.Join(dir, engine.DatabaseFile)
			before := soundRows(t, dir)
			mayLose, lostMsgs := tc.damage(t, path)
			sum := fileSum(t, path)
			rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			if err != nil {
				t.Fatalf("salvage: %v (report %+v)", err, rep)
			}
			if rep.Sound || rep.Damaged == "" || len(rep.Problems) > 0 || hasInvalid(rep) {
				t.Fatalf("report: %+v", rep)
			}
			if fileSum(t, rep.Damaged) != sum {
				t.Fatal("the damaged file was modified")
			}
			after := dumpRows(t, path)
			lost := compareSalvaged(t, before, after, mayLose)
			if lostMsgs >= 0 && lost != lostMsgs {
				t.Errorf("%d messages lost, the damaged page held %d", lost, lostMsgs)
			}
			if got := rep.LostMessages(); got != int64(lost) {
				t.Errorf("report: %d messages lost, %d missing (%+v)", got, lost, rep.Lost)
			}
			usable(t, dir, before, after, rep)
			again, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			if err != nil || !again.Sound || again.Damaged != "" {
				t.Fatalf("second salvage: %v %+v", err, again)
			}
		})
	}
}

// compareSalvaged checks that every salvaged row is the original row of
// its rowid (none invented or altered; the counters of threads, the
// journal's records of lost seqs and the outbox aside) and that rows are
// missing only from the tables in mayLose ("*": any) or as orphans of
// lost messages; it returns how many messages are missing.
func compareSalvaged(t *testing.T, before, after rowDump, mayLose []string) int {
	t.Helper()
	for tb, rows := range after {
		if tb == "threads" || tb == "outbox" {
			continue
		}
		if tb == "embeddings" || tb == "journal" {
			// Rewritten by the reindex, written by the open after it (the
			// embedder's record when it was lost, the lost seqs):
			// compared as sets.
			orig := map[string]bool{}
			for _, row := range before[tb] {
				orig[row] = true
			}
			for _, row := range rows {
				derived := tb == "embeddings" && storedID(before, strings.Split(row, `"`)[1])
				if !orig[row] && !derived && !strings.HasPrefix(row, `["lost"`) && !strings.HasPrefix(row, `["meta"`) {
					t.Errorf("%s: salvaged %s, not an original row", tb, row)
				}
			}
			continue
		}
		for id, row := range rows {
			orig, ok := before[tb][id]
			if !ok || orig != row {
				t.Errorf("%s rowid %d: salvaged %s, original %s (present %v)", tb, id, row, orig, ok)
			}
		}
	}
	lostMsgs := 0
	for tb, rows := range before {
		if tb == "outbox" {
			continue
		}
		for id := range rows {
			if _, ok := after[tb][id]; ok {
				continue
			}
			if tb == "messages" {
				lostMsgs++
			}
			orphan := tb == "embeddings" || tb == "message_blobs" || tb == "dispatches"
			if !orphan && !slices.Contains(mayLose, tb) && !slices.Contains(mayLose, "*") {
				t.Errorf("%s rowid %d lost, though its pages were not damaged", tb, id)
			}
		}
	}
	return lostMsgs
}

// usable opens the salvaged directory and checks it: ok, the known losses
// are exactly the missing messages, LoadContext and search answer, and an
// append to a thread continues after its highest seq ever.
func usable(t *testing.T, dir string, before, after rowDump, rep *engine.SalvageReport) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after salvage: %v", err)
	}
	known, err := e.LostSeqs(ctx)
	if err != nil || fmt.Sprint(known) != fmt.Sprint(rep.Lost) {
		t.Fatalf("known losses %+v (%v), report %+v", known, err, rep.Lost)
	}
	for _, th := range []string{"t1", "t2", "t3"} {
		if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: th, RecentN: 5, Recall: &recall.Options{TopK: 3}}); err != nil && !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("LoadContext %s: %v", th, err)
		}
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "walrus", Options: recall.Options{TopK: 3}})
	if err != nil || len(res.Hits) == 0 && len(after["messages"]) > 0 {
		t.Fatalf("search: %v %+v", err, res)
	}
	for _, th := range []string{"t1", "t2", "t3"} {
		var top int64
		for _, l := range rep.Lost {
			if l.ThreadID == th {
				top = max(top, l.ToSeq)
			}
		}
		top = max(top, maxSeq(t, e, th))
		r, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r", Messages: []engine.Message{user("", "after the salvage")}})
		if err != nil || r.Seqs[0] != top+1 {
			t.Fatalf("append to %s: %v %+v, want seq %d", th, err, r, top+1)
		}
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after appends: %v", err)
	}
}

// maxSeq is the greatest stored seq of thread th (0 when none).
func maxSeq(t *testing.T, e *engine.Engine, th string) int64 {
	t.Helper()
	var n int64
	if err := engine.ConnOf(e).QueryRowContext(context.Background(), `SELECT COALESCE(MAX(seq), 0) FROM messages WHERE thread_id = ?`, th).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSalvageUnreadableSchema: a file whose first page (header and
// schema) is garbage cannot be salvaged; the error says so, and the
// directory is left as it was.
func TestSalvageUnreadableSchema(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	path := filepath.Join(dir, engine.DatabaseFile)
	garble(t, path, 1, 9)
	sum := fileSum(t, path)
	ls := func() string {
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	was := ls()
	_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
	if err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("salvage of a garbled first page: %v", err)
	}
	if fileSum(t, path) != sum || ls() != was {
		t.Fatalf("the directory changed: %s, was %s", ls(), was)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	dir = salvageFixture(t, false)
	pages, _ := pagesOf(t, filepath.Join(dir, engine.DatabaseFile), "messages", "leaf")
	garble(t, filepath.Join(dir, engine.DatabaseFile), pages[1], 10)
	was = ls()
	if _, err := engine.Salvage(cctx, engine.Config{Dir: dir}, engine.SalvageOptions{}); !errors.Is(err, context.Canceled) || ls() != was {
		t.Fatalf("cancelled salvage: %v; directory %s, was %s", err, ls(), was)
	}
}

// hasInvalid reports whether the salvage refused a row it read: none of
// the damage of these tests garbles a row that SQLite returns.
func hasInvalid(rep *engine.SalvageReport) bool {
	for _, tb := range rep.Tables {
		if tb.Invalid > 0 {
			return true
		}
	}
	return false
}

// storedID reports whether before holds a message of that id (an
// embedding of it is derived from it, computed by the reindex when the
// original had none yet).
func storedID(before rowDump, id string) bool {
	for _, row := range before["messages"] {
		if strings.Contains(row, `"`+id+`"`) {
			return true
		}
	}
	return false
}

// FuzzSalvage garbles one page of a real database, chosen by the input,
// and salvages it: salvage fails only when SQLite cannot read the file's
// header or schema, never invents or alters a row, and leaves a directory
// that checks ok.
func FuzzSalvage(f *testing.F) {
	template := salvageFixture(f, false)
	before := dumpRows(f, filepath.Join(template, engine.DatabaseFile))
	orig, err := os.ReadFile(filepath.Join(template, engine.DatabaseFile))
	if err != nil {
		f.Fatal(err)
	}
	pages := uint64(len(orig) / 4096)
	for _, p := range []uint64{2, 3, 7, 19, pages / 2, pages - 1} {
		f.Add(p, uint64(1))
	}
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, page, seed uint64) {
		// Not t.TempDir: the directories of a fuzz target's inputs are
		// left behind.
		dir, err := os.MkdirTemp(base, "in-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, engine.DatabaseFile)
		if err := os.WriteFile(path, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		garble(t, path, int64(1+page%pages), seed)
		rep, err := engine.Salvage(context.Background(), engine.Config{Dir: dir}, engine.SalvageOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), "unreadable") {
				t.Fatalf("page %d: salvage: %v", 1+page%pages, err)
			}
			t.Logf("page %d: %v", 1+page%pages, err)
			return
		}
		t.Logf("page %d: %d messages lost, sound %v", 1+page%pages, rep.LostMessages(), rep.Sound)
		if len(rep.Problems) > 0 {
			t.Fatalf("page %d: check after salvage: %v", 1+page%pages, rep.Problems)
		}
		compareSalvaged(t, before, dumpRows(t, path), []string{"*"})
	})
}

// TestSalvageRefuses: Salvage takes the directory's lock (another open
// engine holds it: ErrLocked, nothing done) and refuses Postgres.
func TestSalvageRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := engine.Salvage(ctx, engine.Config{Dir: dir, LockWait: -1}, engine.SalvageOptions{Force: true}); !errors.Is(err, engine.ErrLocked) {
		t.Fatalf("salvage of a directory in use: %v, want ErrLocked", err)
	}
	if _, err := engine.Salvage(ctx, engine.Config{Postgres: "postgres://nobody@127.0.0.1:1/none"}, engine.SalvageOptions{}); !errors.Is(err, engine.ErrSalvagePostgres) {
		t.Fatalf("salvage on Postgres: %v, want ErrSalvagePostgres", err)
	}
}

// TestDatabaseNotRegularFile: a mnemo.db that is a directory is refused
// by Open and Salvage with ErrDatabaseNotFile (and ErrDatabaseCorrupt),
// naming what it is. Before, Open failed with "create …: is a directory"
// and Salvage tried to copy it (a link to /dev/zero made the copy run
// until the disk was full). A -wal that is a directory is ErrWALNotFile
// (TestWALNotRegularFile).
func TestDatabaseNotRegularFile(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{engine.DatabaseFile} {
		t.Run(name, func(t *testing.T) {
			dir := closedDir(t, "")
			p := filepath.Join(dir, name)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			_, err := engine.Open(ctx, engine.Config{Dir: dir, MustExist: true})
			if !errors.Is(err, engine.ErrDatabaseNotFile) || !errors.Is(err, engine.ErrDatabaseCorrupt) || !strings.Contains(err.Error(), "is a directory") {
				t.Fatalf("open: %v, want ErrDatabaseNotFile naming a directory", err)
			}
			if _, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true}); !errors.Is(err, engine.ErrDatabaseNotFile) {
				t.Fatalf("salvage: %v, want ErrDatabaseNotFile", err)
			}
		})
	}
}

// TestDatabaseDanglingLink: a mnemo.db that is a link to a missing file
// (an unmounted volume, a moved file) is refused with ErrDatabaseNotFile
// naming the link, and nothing is created at its target; before, the open
// saw no database, kept the old indexes, and SQLite created an empty
// database at the target.
func TestDatabaseDanglingLink(t *testing.T) {
	ctx := context.Background()
	dir := closedDir(t, "")
	removeDatabaseFiles(t, dir)
	target := filepath.Join(t.TempDir(), "volume", engine.DatabaseFile)
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, engine.DatabaseFile)); err != nil {
		t.Fatal(err)
	}
	_, err := engine.Open(ctx, engine.Config{Dir: dir})
	if !errors.Is(err, engine.ErrDatabaseNotFile) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("open: %v, want ErrDatabaseNotFile naming a link to a missing file", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was created (%v)", err)
	}
}

// removeDatabaseFiles removes dir's mnemo.db and its -wal and -shm files
// (those present), leaving the derived indexes: a database that is gone.
func removeDatabaseFiles(t *testing.T, dir string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, engine.DatabaseFile+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// closedDir returns a new data directory an engine was opened on and
// closed; with thread set, that engine stored a tool exchange in it
// (toolThread) and brought the indexes up to date first.
func closedDir(t *testing.T, thread string) string {
	t.Helper()
	dir := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir})
	if thread != "" {
		toolThread(t, e, thread)
		if err := e.SyncIndexes(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
