package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	openai "github.com/sashabaranov/go-openai"
)

// TestNilContext: every function and method that takes a context returns
// ErrNilContext for a nil one, and the engine keeps working; CloseContext
// closes. Append(nil, …)
// panicked inside database/sql while it held the pool's lock, and every
// later call on the engine, from any goroutine, then waited for ever.
func TestNilContext(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "hello")}}); err != nil {
		t.Fatal(err)
	}
	var none context.Context
	dir := t.TempDir()
	calls := map[string]func() error{
		"Open":      func() error { _, err := engine.Open(none, engine.Config{Dir: dir}); return err },
		"CheckFile": func() error { return engine.CheckFile(none, engine.Config{Dir: dir}, engine.CheckOptions{}) },
		"CheckLock": func() error { return engine.CheckLock(none, engine.Config{Dir: dir}) },
		"Backup": func() error {
			_, err := engine.Backup(none, engine.Config{Dir: dir}, t.TempDir()+"/b", engine.BackupOptions{})
			return err
		},
		"Salvage": func() error {
			_, err := engine.Salvage(none, engine.Config{Dir: dir}, engine.SalvageOptions{})
			return err
		},
		"Append": func() error {
			_, err := e.Append(none, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("", "x")}})
			return err
		},
		"BeginDispatch":  func() error { _, err := e.BeginDispatch(none, engine.DispatchIntent{}); return err },
		"Check":          func() error { return e.Check(none) },
		"CheckWith":      func() error { return e.CheckWith(none, engine.CheckOptions{}) },
		"DeleteMessages": func() error { _, err := e.DeleteMessages(none, "m1"); return err },
		"DeleteResource": func() error { _, err := e.DeleteResource(none, "r"); return err },
		"DeleteThread":   func() error { _, err := e.DeleteThread(none, "t"); return err },
		"EachThread":     func() error { return e.EachThread(none, "r", func(engine.Thread) error { return nil }) },
		"Expire":         func() error { _, err := e.Expire(none, engine.ExpireRequest{}); return err },
		"FullContent":    func() error { _, err := e.FullContent(none, "m1"); return err },
		"GetThread":      func() error { _, err := e.GetThread(none, "t"); return err },
		"HandleToolCall": func() error {
			_, err := e.HandleToolCall(none, "run", "t", "r", openai.ToolCall{ID: "c", Type: "function", Function: openai.FunctionCall{Name: "x", Arguments: "{}"}})
			return err
		},
		"ListThreads":     func() error { _, err := e.ListThreads(none, "r"); return err },
		"ListThreadsPage": func() error { _, _, err := e.ListThreadsPage(none, []string{"r"}, 10, 0); return err },
		"LoadContext":     func() error { _, err := e.LoadContext(none, engine.LoadRequest{ThreadID: "t"}); return err },
		"LostSeqs":        func() error { _, err := e.LostSeqs(none); return err },
		"Messages":        func() error { _, err := e.Messages(none, "t", 1, 10); return err },
		"MessagesByID":    func() error { _, err := e.MessagesByID(none, "r", "m1"); return err },
		"MessagesPage":    func() error { _, err := e.MessagesPage(none, "t", engine.PageRequest{}); return err },
		"Observations":    func() error { _, err := e.Observations(none, observe.Filter{ThreadID: "t"}); return err },
		"Observe":         func() error { _, err := e.Observe(none, "t", observe.Options{}); return err },
		"Ping":            func() error { return e.Ping(none) },
		"Reindex":         func() error { return e.Reindex(none, false) },
		"Replay":          func() error { _, err := e.Replay(none, "run", engine.ReplayOptions{}); return err },
		"Search":          func() error { _, err := e.Search(none, engine.SearchRequest{ResourceID: "r", Query: "x"}); return err },
		"SearchMessages": func() error {
			_, err := e.SearchMessages(none, engine.SearchRequest{ResourceID: "r", Query: "x"})
			return err
		},
		"SearchPreviews": func() error {
			_, err := e.SearchPreviews(none, engine.SearchRequest{ResourceID: "r", Query: "x"})
			return err
		},
		"SetIdleTTL":             func() error { return e.SetIdleTTL(none, "t", "r", 0) },
		"SettleDispatch":         func() error { _, err := e.SettleDispatch(none, engine.Settlement{}); return err },
		"Stats":                  func() error { _, err := e.Stats(none); return err },
		"StoredWorkingMode":      func() error { _, _, err := e.StoredWorkingMode(none, "thread:t"); return err },
		"WorkingMemoryResources": func() error { _, err := e.WorkingMemoryResources(none, "", 1); return err },
		"SyncIndexes":            func() error { return e.SyncIndexes(none) },
		"ThreadsPage":            func() error { _, err := e.ThreadsPage(none, engine.ThreadsRequest{}); return err },
		"Tools":                  func() error { _, err := e.Tools(none, "t", "r"); return err },
		"Unsettled":              func() error { _, err := e.Unsettled(none, "t", "r"); return err },
		"Vacuum":                 func() error { _, err := e.Vacuum(none, false); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic: %v", p)
				}
			}()
			if err := call(); !errors.Is(err, engine.ErrNilContext) {
				t.Fatalf("err = %v, want ErrNilContext", err)
			}
		})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("m2", "still working")}}); err != nil {
		t.Fatalf("Append after the nil-context calls: %v", err)
	}
	if ms, err := e.Messages(ctx, "t", 1, 10); err != nil || len(ms) != 2 {
		t.Fatalf("messages after the nil-context calls: %d, %v; want 2", len(ms), err)
	}
	// Closing is never refused: a nil context is context.Background().
	if err := e.CloseContext(none); err != nil {
		t.Fatalf("CloseContext(nil): %v", err)
	}
	if _, err := e.Stats(ctx); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("Stats after CloseContext(nil): %v, want ErrClosed", err)
	}
}
