package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// uncountedDir returns a data directory of harbourMessages whose threads
// table's only page and messages table's last leaf are garbled: the
// messages lost with that leaf are counted against no thread's last seq.
// With threads false only the messages' leaf is garbled: its losses are
// counted.
func uncountedDir(t *testing.T, threads bool) string {
	t.Helper()
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	last := lastMessageLeaf(t, path)
	if threads {
		garblePage(t, path, rootPage(t, path, "threads"))
	}
	garblePage(t, path, last)
	return dir
}

// TestSalvageUncountedLoss: with the threads table's only page and the
// messages table's last leaf garbled, the lost messages are counted
// against no thread's last seq: salvage said "no message lost" and exited
// 0 (readme68 F2 (b)). It names the unreadable rowids, says how many is
// unknown and exits 1; and it says only to keep the damaged file and the
// kept indexes, saying why (it said "keep the damaged file below", then
// "delete it once you are satisfied": rev70 #7).
func TestSalvageUncountedLoss(t *testing.T) {
	dir := uncountedDir(t, true)
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	if code != 1 || strings.Contains(out, "no message lost") || !strings.Contains(out, "how many is unknown") || !strings.Contains(stderr, "keep ") {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	if strings.Contains(out, "delete it") || strings.Contains(out, "delete them") || !strings.Contains(out, ": keep it, it is the only copy of the messages with rowids ") ||
		!strings.Contains(out, ": keep them too, their shard snapshots may hold the text of those messages") {
		t.Fatalf("salvage's advice on the damaged file, after a loss it cannot count, is not only to keep it:\n%s", out)
	}
}

// TestSalvageUncountedLossJSON: salvage --json of TestSalvageUncountedLoss's
// damage has uncountedMessages, the messages' unreadable rowid ranges (it
// had no such member: a script saw only exit 1 and standard error, rev70
// #7); a salvage whose losses are all counted (the threads table whole)
// has none.
func TestSalvageUncountedLossJSON(t *testing.T) {
	for _, threads := range []bool{true, false} {
		dir := uncountedDir(t, threads)
		code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
		var rep struct {
			Tables []struct {
				Name       string     `json:"name"`
				Unreadable [][2]int64 `json:"unreadable"`
			} `json:"tables"`
			Uncounted *[][2]int64 `json:"uncountedMessages"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("salvage --json (threads garbled %v): exit %d, %v\n%s%s", threads, code, err, out, stderr)
		}
		if !threads {
			if code != 0 || rep.Uncounted != nil {
				t.Fatalf("salvage --json, every loss counted: exit %d, uncountedMessages %v\n%s%s", code, rep.Uncounted, out, stderr)
			}
			continue
		}
		var unreadable [][2]int64
		for _, tb := range rep.Tables {
			if tb.Name == "messages" {
				unreadable = tb.Unreadable
			}
		}
		if code != 1 || rep.Uncounted == nil || len(*rep.Uncounted) == 0 || !slices.Equal(*rep.Uncounted, unreadable) {
			t.Fatalf("salvage --json: exit %d, uncountedMessages %v, want the messages' unreadable %v\n%s%s", code, rep.Uncounted, unreadable, out, stderr)
		}
	}
}

// lastMessageLeaf returns the leaf page of the messages table holding its
// greatest rowid in the sound database at path.
func lastMessageLeaf(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page int64
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return page
}
