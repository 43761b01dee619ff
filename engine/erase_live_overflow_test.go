package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestErasureLiveOverflowNoVacuum: an erased message's metadata, or its
// tool call's arguments, that live long messages of another thread
// holds too (an import's {"source":"slack export"} on every message; the
// same call made again) lies in that row's overflow pages, past its
// content; the residue check found it there, could not tell the live
// chain's bytes from free ones and vacuumed the whole file on every such
// erasure (EraseResult.Vacuumed "residue"). It now finds the live cell
// whose chain runs through the page: a match within the chain's payload
// is a live row's, left (counted live), so no VACUUM; a copy of the
// erased message's content planted past the payload, in the chain's last
// page's unused tail, is zeroed in place.
func TestErasureLiveOverflowNoVacuum(t *testing.T) {
	const args = `{"channel":"general","query":"quarterly numbers"}`
	for _, tc := range []struct {
		name   string
		msg    func(call, content string) engine.Message
		shared string // as stored
	}{
		{"Metadata", func(_, content string) engine.Message {
			return engine.Message{Role: engine.RoleUser, Content: content, Metadata: map[string]any{"source": "slack export"}}
		}, `{"source":"slack export"}`},
		{"Arguments", func(call, content string) engine.Message {
			return engine.Message{Role: engine.RoleAssistant, Content: content,
				ToolCalls: []engine.ToolCall{{ID: call, Name: "search", Arguments: json.RawMessage(args)}}}
		}, args},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			const secret = "the erased short message, zq-8812"
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			// ~10-14 KB each: SQLite sizes a row's part in its b-tree
			// page so its last overflow page is full, unless that part
			// would be too large; one of these ten lengths leaves that
			// page an unused tail.
			var long []engine.Message
			for i := range 10 {
				long = append(long, tc.msg(fmt.Sprint("call_", i), strings.Repeat("a long imported message that spills into overflow pages. ", 180+7*i)))
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "kept", ResourceID: "r", Messages: long}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "gone", ResourceID: "r", Messages: []engine.Message{tc.msg("call_gone", secret)}})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(e.Dir(), engine.DatabaseFile)
			plantInOverflowTail(t, e, tc.shared, secret)
			live, cleared := engine.LivePages(e), engine.ClearedPages(e)
			er, err := e.DeleteMessages(ctx, res.IDs...)
			if err != nil {
				t.Fatal(err)
			}
			if er.Vacuumed != "" {
				t.Fatalf("EraseResult.Vacuumed %q, want no VACUUM: the only other copy of %s is a live row's", er.Vacuumed, tc.shared)
			}
			if engine.LivePages(e) == live || engine.ClearedPages(e) == cleared {
				t.Fatal("no live page counted, or none cleared: the live row's last overflow page holds the shared text, and a copy of the erased content past it")
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(secret)}); err != nil || held {
				t.Fatalf("%s still holds the erased message's content (%v)", engine.DatabaseFile, err)
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(tc.shared)}); err != nil || !held {
				t.Fatalf("the live row's %s left the file (%v)", tc.shared, err)
			}
		})
	}
}

// plantInOverflowTail writes text into the unused tail of the overflow
// page of e's database that holds shared, a live row's end (no b-tree
// page: its first byte is 0), 40 bytes after the page's last non-zero
// byte, through sqlite_dbpage; the first such page with room for it.
func plantInOverflowTail(t *testing.T, e *engine.Engine, shared, text string) {
	t.Helper()
	ctx := context.Background()
	db := engine.DBOf(e)
	var pages int64
	if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	for pg := int64(2); pg <= pages; pg++ {
		var p []byte
		if err := db.QueryRowContext(ctx, `SELECT data FROM sqlite_dbpage WHERE pgno = ?`, pg).Scan(&p); err != nil {
			t.Fatal(err)
		}
		if p[0] != 0 || !strings.Contains(string(p), shared) {
			continue
		}
		at := len(strings.TrimRight(string(p), "\x00")) + 40
		if at+len(text) > len(p) {
			continue // the row's end fills the page
		}
		copy(p[at:], text)
		if _, err := db.ExecContext(ctx, `UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, p, pg); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no overflow page holds %s with room for %q after it", shared, text)
}
