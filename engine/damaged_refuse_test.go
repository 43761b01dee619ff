package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// garbledPageDir stores thread "t" (60 messages, the 30th holding marker)
// and thread "u" (60 messages after them, on other pages), closes the
// engine (the WAL checkpointed) and overwrites the b-tree header of the
// page holding marker: every read that reaches it is SQLITE_CORRUPT.
func garbledPageDir(t *testing.T, marker string) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []string{"t", "u"} {
		var msgs []engine.Message
		for i := range 60 {
			text := fmt.Sprintf("%s message %d about the weather in a town by the sea, with words that take room", th, i)
			if th == "t" && i == 30 {
				text = "the " + marker + " said the refund was approved"
			}
			msgs = append(msgs, user("", text))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r-" + th, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, engine.DatabaseFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(marker))
	if at < 0 {
		t.Fatalf("marker not in %s (WAL not checkpointed?)", path)
	}
	ps := int(binary.BigEndian.Uint16(b[16:18]))
	copy(b[at/ps*ps:], bytes.Repeat([]byte{0xff}, 12)) // no b-tree page type, garbled cell count
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDamagedRefusesNewData: once a read met a damaged page of mnemo.db,
// every call that would store new data on a sound thread returns
// ErrDatabaseCorrupt and stores nothing (LoadContext: no memctx record,
// no context), while an erasure still runs. Before, only Append refused:
// LoadContext answered with its record written into the damaged file,
// a working-memory Set stored its state there, Observe, SetIdleTTL and
// RestoreDispatch went on.
//
// SQLite only: it damages the database file.
func TestDamagedRefusesNewData(t *testing.T) {
	ctx := context.Background()
	dir := garbledPageDir(t, "zanzibar-lighthouse-keeper")
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{},
		WorkingMemory: &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread}})
	if err != nil {
		t.Fatalf("open of the damaged directory: %v", err)
	}
	defer e.Close()
	if _, err := e.Messages(ctx, "t", 0, 0); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("read of the damaged page: %v, want ErrDatabaseCorrupt", err)
	}
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"LoadContext": func() error {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "u", RunID: "run-after"})
			return err
		},
		"working-memory Set": func() error {
			_, err := mem.Set(ctx, working.ThreadKey("u"), "# User\n- Name: Una\n", working.Origin{})
			return err
		},
		"Observe":         func() error { _, err := e.Observe(ctx, "u", observe.Options{}); return err },
		"SetIdleTTL":      func() error { return e.SetIdleTTL(ctx, "u", "r-u", time.Hour) },
		"RestoreDispatch": func() error { _, err := e.RestoreDispatch(ctx, engine.Dispatch{}); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, engine.ErrDatabaseCorrupt) || working.Refused(err) {
			t.Errorf("%s after the damage: %v, want ErrDatabaseCorrupt", name, err)
		}
	}
	if _, err := e.Journal().MemCtx(ctx, "run-after"); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("the refused context's record: %v, want ErrNotFound", err)
	}
	if st, err := mem.Get(ctx, working.ThreadKey("u")); err != nil || st.Version != 0 {
		t.Errorf("the refused state: %+v, %v; want none (version 0)", st, err)
	}
	if _, err := e.DeleteThread(ctx, "u"); err != nil {
		t.Errorf("erasure after the damage: %v", err)
	}
}
