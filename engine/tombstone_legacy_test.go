package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
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
// ErrThreadNotFound with the run kept. A real tombstone (another
// resource's run kept, its thread id entombed, when the thread was
// erased, as builds before 2026-12-06 did) is still not a thread: ThreadlessOwners is nil, DeleteThread
// ErrThreadNotFound, the run kept.
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
		const tomb = engine.TombstonePrefix + "0123456789abcdef0123"
		for _, q := range []string{`UPDATE journal SET thread_id = ? WHERE key = ?`, `UPDATE runs SET thread_id = ? WHERE id = ?`} {
			key := journal.MemCtxKey("alice-run")
			if strings.HasPrefix(q, "UPDATE runs") {
				key = "alice-run"
			}
			if _, err := engine.ConnOf(e).ExecContext(ctx, q, tomb, key); err != nil {
				t.Fatal(err)
			}
		}
		if owners, err := e.ThreadlessOwners(ctx, tomb); err != nil || owners != nil {
			t.Errorf("ThreadlessOwners(%s) = %v, %v; want none: a tombstone", tomb, owners, err)
		}
		if _, err := e.DeleteThread(ctx, tomb); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("DeleteThread(%s): %v, want ErrThreadNotFound", tomb, err)
		}
		if _, err := e.Journal().MemCtx(ctx, "alice-run"); err != nil {
			t.Errorf("alice's run after DeleteThread of its tombstone: %v, want it kept", err)
		}
	})
}
