package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// garbledPageDir stores thread "t" (60 messages, the 30th holding marker)
// and thread "u" (60 messages after them, on other pages), closes the
// engine (the WAL checkpointed) and overwrites the b-tree header of the
// page holding marker: every read that reaches it is SQLITE_CORRUPT.
func garbledPageDir(t *testing.T, marker string) string {
	t.Helper()
	return garbleInto(t, t.TempDir(), marker)
}

// garbleInto stores garbledPageDir's threads "t" and "u" in dir (beside
// what it holds) and garbles the page holding marker; it returns dir.
func garbleInto(t *testing.T, dir, marker string) string {
	t.Helper()
	path := storeMarkerThreads(t, dir, marker)
	enginetest.GarblePage(t, path, enginetest.PageHolding(t, path, marker))
	return dir
}

// storeMarkerThreads stores threads "t" and "u" (60 messages each; t's
// 31st holds marker) in dir, waits for the indexes and closes the engine,
// and returns the path of dir's mnemo.db.
func storeMarkerThreads(t *testing.T, dir, marker string) string {
	t.Helper()
	ctx := context.Background()
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
	if err := e.SyncIndexes(ctx); err != nil { // no index drain reads the damaged page at the next Open
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, engine.DatabaseFile)
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

// TestDamagedHoldsBackgroundObserver: the background observer holds once
// a read met a damaged page (until the process ends: the flag is the
// process's): 101 sound threads of resource r-a are due
// (the backlog's first page holds 100), then thread t of r-z holds the
// damaged page. While the first thread's model call waits, a read of t
// meets the damage; the observer then observes no other thread and logs
// that it holds, and the first thread's observation, whose model call
// was in flight when the damage was found, is not stored either (it was,
// before observe.Config.Writable). Before, Observe refused
// but the background observer went on, calling the model and storing its
// observations into the damaged file.
func TestDamagedHoldsBackgroundObserver(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 101 {
		var msgs []engine.Message
		for j := range 4 {
			msgs = append(msgs, user("", fmt.Sprintf("turn %d of a sound thread about the garden, the roses and the weather by the sea", j)))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("a%03d", i), ResourceID: "r-a", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	dir = garbleInto(t, dir, "zanzibar-lighthouse-keeper")
	release := make(chan struct{})
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		<-release
		return observerModel(req)
	}))
	logs := &logCount{}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, RecentN: 2, Logger: logs.logger(),
		Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 20, Background: true}})
	if err != nil {
		t.Fatalf("open of the damaged directory: %v", err)
	}
	defer e.Close()
	waitFor(t, "the first thread's model call", func() bool { return srv.Count("/v1/chat/completions") > 0 })
	if _, err := e.Messages(ctx, "t", 0, 0); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("read of the damaged page: %v, want ErrDatabaseCorrupt", err)
	}
	close(release) // the first thread's observation, begun before the damage was found, ends unstored
	waitFor(t, "the background observer to hold", func() bool { return logs.count("background observer held") > 0 })
	for i := 0; i < 101; i++ { // a000's too: its model call was in flight when the damage was found (dmgm62)
		id := fmt.Sprintf("a%03d", i)
		if obs, err := e.Observations(ctx, observe.Filter{ThreadID: id}); err != nil || len(obs) > 0 {
			t.Errorf("observations of thread %s after the damage: %d, %v; want none", id, len(obs), err)
		}
	}
}
