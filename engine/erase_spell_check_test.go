package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestSpelledIDCheckOnlyWhenFound: an erasure reads the stored run ids
// for an erased id (does another resource's run id spell it?) only when
// the purge's residue check finds the id in the database file. The check
// ran in every erasure's transaction, a read of every run id for each
// erased id of 12 bytes or more, whatever the file held. SQLite only: the
// residue check is SQLite's.
func TestSpelledIDCheckOnlyWhenFound(t *testing.T) {
	const alice, bob = "res-alice-7710", "res-bob-7710"
	for _, c := range []struct {
		name, thread string
		bobRun       string // bob's run on his own thread; "" for none
		checks       int64
	}{
		{"no run spells it", "alice-thread-7710", "", 0},
		{"bob's run spells it", "alice-thread-7711", "bob-saw-alice-thread-7711", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			appendUser(t, e, c.thread, alice, "alice's first turn")
			if c.bobRun != "" {
				appendUser(t, e, "bob-thread-7710", bob, "bob's first turn")
				if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: c.bobRun, ThreadID: "bob-thread-7710", ResourceID: bob}); err != nil {
					t.Fatal(err)
				}
			}
			before := engine.SpellChecks(e)
			res, err := e.DeleteThread(ctx, c.thread)
			if err != nil {
				t.Fatal(err)
			}
			if got := engine.SpellChecks(e) - before; got != c.checks {
				t.Errorf("the erasure looked for %d erased ids in the run ids, want %d", got, c.checks)
			}
			if res.Vacuumed != "" {
				t.Errorf("EraseResult.Vacuumed = %q, want none", res.Vacuumed)
			}
		})
	}
}
