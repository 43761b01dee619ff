package journal_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestRunIDSpells: RunIDSpells finds an id inside a stored run id byte for
// byte: SQLite's LIKE, which ignores ASCII case, does not make another
// case a match, nor does a LIKE wildcard in the id.
func TestRunIDSpells(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		for _, run := range []string{"bob:s9_thread-1:turn", "Upper-Case-Thread-run"} {
			if err := j.ClaimRun(ctx, run, "t1", "r1"); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			id   string
			want bool
		}{
			{"s9_thread-1", true},
			{"s9%-1", false},
			{"Upper-Case-Thread", true},
			{"upper-case-thread", false},
			{"absent-thread", false},
		} {
			var got bool
			inTx(t, db, func(tx *store.Tx) error {
				var err error
				got, err = journal.RunIDSpells(ctx, tx, c.id)
				return err
			})
			if got != c.want {
				t.Errorf("RunIDSpells(%q) = %v, want %v", c.id, got, c.want)
			}
		}
	})
}
