package observe_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

// TestThreadLockPerSchema: the lock a transaction writing a thread's
// observations takes on Postgres is the schema's: a deployment in another
// schema of the same database (docs/postgres.md) takes the lock of a
// thread spelled the same at once, while a second pool of the same schema
// waits for it. Before, the lock's key was a hash of the thread id alone
// and advisory locks are the database's, so every schema's observations of
// thread "t" were stored one at a time.
func TestThreadLockPerSchema(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Name != "postgres" {
			t.Skipf("%s: a file per deployment, no lock shared", b.Name)
		}
		ctx := context.Background()
		place := b.Place(t)
		begin := func(place string) *store.Tx {
			t.Helper()
			tx, err := store.Begin(ctx, b.OpenDB(t, place), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tx.Rollback() })
			return tx
		}
		held := begin(place)
		if err := observe.LockThread(ctx, held, "t"); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := observe.LockThread(short, begin(b.Place(t)), "t"); err != nil {
			t.Errorf("another schema's lock of thread t: %v; want it taken at once", err)
		}
		brief, cancelBrief := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancelBrief()
		if err := observe.LockThread(brief, begin(place), "t"); err == nil {
			t.Error("a second pool of the same schema took the lock of thread t while a transaction held it")
		}
	})
}
