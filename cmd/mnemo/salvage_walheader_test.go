package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// liveWALDir returns a data directory copied while an engine had appends
// in its -wal (a crash image: 200 messages in mnemo.db, 5 in the log,
// whose frames hold page 1 too), and the offset in the -wal of the page
// data of the log's last frame of page 1. A reader of another handle
// pins the log from before the 5 appends until the copy, and the outbox
// is drained first: no checkpoint copies their frames into mnemo.db and
// no write restarts the log while the two files are read one after the
// other. Before, the drainer's checkpoint and next write could restart
// the log between the appends and the copy (under load): the copied log
// held no valid frame of page 1, SQLite read the lowered page count
// from mnemo.db's, and salvage rightly found it unsound.
func liveWALDir(t *testing.T) (dir string, page1 int64) {
	t.Helper()
	ctx := context.Background()
	live := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	e, err := engine.Open(ctx, engine.Config{Dir: live, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pin := pinLog(t, filepath.Join(live, engine.DatabaseFile))
	defer pin()
	for i := range 5 {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: fmt.Sprintf("late message %d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal"} {
		b, err := os.ReadFile(filepath.Join(live, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if f != engine.DatabaseFile {
			for at := int64(32); at+24+4096 <= int64(len(b)); at += 24 + 4096 {
				if binary.BigEndian.Uint32(b[at:]) == 1 && string(b[at+8:at+16]) == string(b[16:24]) { // this log's salts
					page1 = at + 24
				}
			}
		}
	}
	if page1 == 0 {
		t.Fatal("the -wal holds no frame of page 1")
	}
	return dir, page1
}

// pinLog holds a read transaction on the database at path, from a handle
// of its own, until the returned func is called: no checkpoint copies a
// frame logged after it into the file, and no write restarts the log.
func pinLog(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return func() {
		tx.Rollback()
		db.Close()
	}
}

// TestSalvageHeaderPageCountWAL: the header's page count lowered while a
// -wal beside mnemo.db holds a newer page 1 (closing42: FixHeader writes
// the file's page 1, which SQLite does not read then). In mnemo.db it
// does no harm: SQLite reads page 1 from the log and the database's size
// from its last commit, so the file is sound, every message is there,
// and the next checkpoint writes the log's page 1 over the damaged one.
// In the log's own copy of page 1 it is a damaged frame (its checksum
// fails), handled as any other: the commits from it on are not applied
// and the log is kept beside the file, which salvage and check report.
func TestSalvageHeaderPageCountWAL(t *testing.T) {
	for _, inWAL := range []bool{false, true} {
		t.Run(fmt.Sprint("inWAL=", inWAL), func(t *testing.T) {
			dir, page1 := liveWALDir(t)
			path := filepath.Join(dir, engine.DatabaseFile)
			at := int64(28)
			if inWAL {
				path, at = path+"-wal", page1+28
			}
			rewriteFile(t, path, func(b []byte) []byte {
				binary.BigEndian.PutUint32(b[at:], 5)
				return b
			})
			code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
			var rep engine.SalvageReport
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Sound || (rep.WAL != nil) != inWAL {
				t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
			}
			if inWAL && (len(rep.WAL.DamagedFrames) == 0 || rep.WAL.CommitsNotApplied == 0) {
				t.Fatalf("the damaged frame of page 1 is not reported: %+v", rep.WAL)
			}
			code, out, stderr = run(t, nil, "--dir", dir, "check")
			if inWAL != (code == 1) || inWAL && !strings.Contains(stderr, "commits after the damage were not applied") {
				t.Fatalf("check: exit %d\n%s%s", code, out, stderr)
			}
			if !inWAL {
				_, out, _ = run(t, nil, "--dir", dir, "messages", "--thread", "u")
				if !strings.Contains(out, "late message 4") {
					t.Fatalf("the log's last message is not stored:\n%s", out)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if n := binary.BigEndian.Uint32(b[28:]); int(n) != len(b)/4096 {
					t.Fatalf("after a checkpoint the header still says %d pages (the file holds %d)", n, len(b)/4096)
				}
			}
		})
	}
}
