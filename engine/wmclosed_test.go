package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryAfterClose: a *working.Memory the engine gave out
// (WorkingMemory, OpenWorkingMemory) answers ErrClosed after Close, on
// every call that reads or writes the database, as the engine's own
// methods do. Before, each failed with "sql: database is closed" (walk37
// #8), which errors.Is(err, engine.ErrClosed) did not match.
func TestWorkingMemoryAfterClose(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource}})
		configured, err := e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		opened, err := e.OpenWorkingMemory(working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource})
		if err != nil {
			t.Fatal(err)
		}
		key := working.ResourceKey("r")
		if _, err := configured.Set(ctx, key, `{"city":"Porto"}`, working.Origin{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		for name, mem := range map[string]*working.Memory{"WorkingMemory": configured, "OpenWorkingMemory": opened} {
			calls := map[string]func() error{
				"Get":     func() error { _, err := mem.Get(ctx, key); return err },
				"GetAt":   func() error { _, err := mem.GetAt(ctx, key, time.Now()); return err },
				"History": func() error { _, err := mem.History(ctx, key, 0); return err },
				"Render":  func() error { _, err := mem.Render(ctx, key); return err },
				"Merge": func() error {
					_, err := mem.Merge(ctx, key, map[string]any{"pet": "cat"}, working.Origin{})
					return err
				},
				"Set": func() error { _, err := mem.Set(ctx, key, `{"pet":"cat"}`, working.Origin{}); return err },
				// Arguments a memory refuses: closed comes first (walk39
				// #10: they answered ErrInvalidPatch, ErrWrongMode).
				"Merge of no object": func() error { _, err := mem.Merge(ctx, key, "cat", working.Origin{}); return err },
				"Set of no object":   func() error { _, err := mem.Set(ctx, key, `[1]`, working.Origin{}); return err },
				"Edit":               func() error { _, err := mem.Edit(ctx, key, "", "x", working.Origin{}); return err },
			}
			for call, f := range calls {
				if err := f(); !errors.Is(err, engine.ErrClosed) {
					t.Errorf("%s's memory, %s after Close: %v, want engine.ErrClosed", name, call, err)
				}
			}
		}
	})
}
