package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestSpelledIDNoVacuum: an erased id that another resource's stored run
// id spells stays in the file in that live row, which the residue check
// leaves alone (it zeroes only free space): the erasure does not vacuum,
// and reads no run id to find out (it read them for each erased id the
// file held, then vacuumed for every other id it found). SQLite only: the
// residue check is SQLite's.
func TestSpelledIDNoVacuum(t *testing.T) {
	const alice, bob = "res-alice-7710", "res-bob-7710"
	for _, c := range []struct {
		name, thread string
		bobRun       string // bob's run on his own thread; "" for none
	}{
		{"no run spells it", "alice-thread-7710", ""},
		{"bob's run spells it", "alice-thread-7711", "bob-saw-alice-thread-7711"},
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
			res, err := e.DeleteThread(ctx, c.thread)
			if err != nil {
				t.Fatal(err)
			}
			if res.Vacuumed != "" {
				t.Errorf("EraseResult.Vacuumed = %q, want none", res.Vacuumed)
			}
		})
	}
}
