package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryConfigStoredWithState: an engine opened with
// Config.WorkingMemory stores it with the states; an engine opened later on
// the directory without one (mnemo context, mnemo wm, a server without its
// config) renders and validates the states with the stored one: the same
// system part, the same prompt hash, the same schema refusal. A new
// configuration replaces the stored one. Before, an engine without
// Config.WorkingMemory had no working memory at all (ErrNoWorkingMemory),
// whatever states the directory held.
func TestWorkingMemoryConfigStoredWithState(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		app := &working.Config{Schema: json.RawMessage(wmSchema), Scope: working.ScopeResource}
		e := be.MustOpen(t, st.Config(engine.Config{WorkingMemory: app}))
		appendUser(t, e, "t1", "u1", "I moved to Porto")
		mem, err := e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Merge(ctx, working.ResourceKey("u1"), json.RawMessage(`{"city":"Porto"}`), working.Origin{RunID: "app"}); err != nil {
			t.Fatal(err)
		}
		want, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r-app", ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(wmSection(t, want), `"city": "Porto"`) {
			t.Fatalf("the application's context lacks the working memory:\n%s", want.System)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		cli := be.MustOpen(t, st.Config(engine.Config{}))
		got, err := cli.LoadContext(ctx, engine.LoadRequest{RunID: "r-cli", ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if got.System != want.System || got.PromptHash != want.PromptHash || len(got.Tools) != len(want.Tools) {
			t.Fatalf("without a configuration the context differs:\n%s\nwant\n%s", got.System, want.System)
		}
		cm, err := cli.WorkingMemory()
		if err != nil {
			t.Fatalf("working memory without a configuration: %v", err)
		}
		if cm.Scope() != working.ScopeResource || cm.Mode() != working.ModeSchema || cm.ReadOnly() {
			t.Fatalf("stored configuration: scope %s mode %s readOnly %v", cm.Scope(), cm.Mode(), cm.ReadOnly())
		}
		if _, err := cm.Merge(ctx, working.ResourceKey("u1"), json.RawMessage(`{"city":5}`), working.Origin{RunID: "cli"}); !errors.Is(err, working.ErrSchemaViolation) {
			t.Fatalf("a patch the stored schema refuses: %v, want ErrSchemaViolation", err)
		}
		if err := cli.Close(); err != nil {
			t.Fatal(err)
		}

		// A new configuration replaces the stored one.
		tmpl := &working.Config{Template: "# Notes\n", Scope: working.ScopeThread, ReadOnly: true}
		e2 := be.MustOpen(t, st.Config(engine.Config{WorkingMemory: tmpl}))
		if err := e2.Close(); err != nil {
			t.Fatal(err)
		}
		e3 := be.MustOpen(t, st.Config(engine.Config{}))
		m3, err := e3.WorkingMemory()
		if err != nil || m3.Mode() != working.ModeTemplate || m3.Scope() != working.ScopeThread || !m3.ReadOnly() {
			t.Fatalf("after a new configuration: %v %+v", err, m3)
		}
	})
}

// TestWorkingMemoryNoneStored: a directory no engine configured working
// memory for has none (ErrNoWorkingMemory), and a configuration that does
// not build is refused by Open and leaves the stored one in place.
func TestWorkingMemoryNoneStored(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		st := be.NewStore(t)
		e := be.MustOpen(t, st.Config(engine.Config{}))
		if _, err := e.WorkingMemory(); !errors.Is(err, engine.ErrNoWorkingMemory) {
			t.Fatalf("no configuration anywhere: %v, want ErrNoWorkingMemory", err)
		}
		e.Close()
		e = be.MustOpen(t, st.Config(engine.Config{WorkingMemory: &working.Config{Template: "# T\n"}}))
		e.Close()
		// Refused by Open, which then stores nothing (before, it opened and
		// WorkingMemory and every LoadContext failed).
		if e, err := engine.Open(context.Background(), st.Config(engine.Config{WorkingMemory: &working.Config{Mode: working.ModeSchema}})); !errors.Is(err, working.ErrInvalidConfig) || !errors.Is(err, engine.ErrInvalidInput) {
			if err == nil {
				e.Close()
			}
			t.Fatalf("Open with a schema mode without a schema: %v, want ErrInvalidConfig", err)
		}
		e = be.MustOpen(t, st.Config(engine.Config{}))
		if m, err := e.WorkingMemory(); err != nil || m.Mode() != working.ModeTemplate {
			t.Fatalf("the stored configuration after a bad one: %v", err)
		}
	})
}
