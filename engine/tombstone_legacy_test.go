package engine_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/journal"
)

// TestLegacyPrefixGhostErased: a run recorded, before ids beginning with
// "erased-" were reserved, under such a thread id with no thread stored (a
// LoadContext before any append) is that thread's, as any thread-less
// run: ThreadlessOwners names its resource and DeleteThread erases it.
// Before, both skipped it as an erased thread's tombstone
// (journal.GhostRuns left out every thread id with the prefix): nil, and
// ErrThreadNotFound with the run kept. A run whose thread id is a real
// tombstone (another resource's run, its thread id entombed and its query
// kept when the thread was erased, as builds before 2026-12-06 did) is its
// resource's run with no stored thread too: ThreadlessOwners names alice,
// DeleteThread of the tombstone erases it (they said nil and
// ErrThreadNotFound, and nothing but DeleteResource reached it: walk56
// F1; its expiry: TestLegacyEntombedRunExpires).
func TestLegacyPrefixGhostErased(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		legacyid.Allow(e)
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "legacy-run", ThreadID: "erased-g", ResourceID: "r1"}); err != nil {
			t.Fatal(err)
		}
		if owners, err := e.ThreadlessOwners(ctx, "erased-g"); err != nil || !slices.Equal(owners, []string{"r1"}) {
			t.Errorf("ThreadlessOwners(erased-g) = %v, %v; want [r1]", owners, err)
		}
		res, err := e.DeleteThread(ctx, "erased-g")
		if err != nil || res.Runs != 1 {
			t.Fatalf("DeleteThread(erased-g) = %+v, %v; want 1 run erased", res, err)
		}
		if _, err := e.Journal().MemCtx(ctx, "legacy-run"); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("MemCtx(legacy-run) after DeleteThread: %v, want journal.ErrNotFound", err)
		}

		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "alice-run", ThreadID: "shared", ResourceID: "alice"}); err != nil {
			t.Fatal(err)
		}
		appendUser(t, e, "shared", "bob", "bob's thread")
		if _, err := e.DeleteThread(ctx, "shared"); err != nil {
			t.Fatal(err)
		}
		// A build before 2026-12-06 entombed alice's run's thread id when
		// bob's thread was erased (walk56 F1); such a record is made here.
		entombLegacy(t, e, "alice-run")
		if owners, err := e.ThreadlessOwners(ctx, legacyTomb); err != nil || !slices.Equal(owners, []string{"alice"}) {
			t.Errorf("ThreadlessOwners(%s) = %v, %v; want [alice]", legacyTomb, owners, err)
		}
		if res, err := e.DeleteThread(ctx, legacyTomb); err != nil || res.Runs != 1 {
			t.Errorf("DeleteThread(%s) = %+v, %v; want alice's run erased", legacyTomb, res, err)
		}
		if _, err := e.Journal().MemCtx(ctx, "alice-run"); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("alice's run after DeleteThread of its tombstone: %v, want ErrNotFound", err)
		}
	})
}
