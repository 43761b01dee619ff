package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestGuardedErasureAcrossPools is readme73 F0: two engines (two pools, as
// two processes) on one Postgres schema; engine a erases a thread because
// of what its guard read (the thread idle for its lifetime, or the least
// recently active of an over-quota resource), and engine b appends to that
// thread right after the guard passed, before the erasure's statements
// (SetAfterEraseGuard). Before, the guard read the thread before the
// erasure took the thread's append lock: b's append committed in between
// and a erased it with the thread, after b had acknowledged it. Now the
// erasure holds the lock when its guard reads: b's append waits for the
// erasure to commit and stores its message in a fresh thread (seq 1).
func TestGuardedErasureAcrossPools(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		if be.Name != enginetest.Postgres.Name {
			t.Skip("two pools on one schema need Postgres; SQLite has one writer (one process holds the directory)")
		}
		cases := []struct {
			name   string
			a, b   engine.Lifecycle
			before []string // threads b appends to first, one message each, a second apart; the first is the one raced
			erase  func(ctx context.Context, a *engine.Engine) error
		}{
			{name: "operator expiry", before: []string{"old"},
				erase: func(ctx context.Context, a *engine.Engine) error {
					_, err := a.Expire(ctx, engine.ExpireRequest{Idle: time.Hour})
					return err
				}},
			{name: "idle lifetime", a: engine.Lifecycle{IdleTTL: time.Hour}, b: engine.Lifecycle{IdleTTL: time.Hour}, before: []string{"old"},
				erase: func(ctx context.Context, a *engine.Engine) error {
					_, err := a.Expire(ctx, engine.ExpireRequest{})
					return err
				}},
			{name: "quota eviction", a: engine.Lifecycle{Quota: engine.Quota{ResourceMessages: 3}}, before: []string{"old", "cur"},
				erase: func(ctx context.Context, a *engine.Engine) error {
					_, err := a.Append(ctx, engine.AppendRequest{ThreadID: "new", ResourceID: "ana",
						Messages: []engine.Message{user("", "new one"), user("", "new two")}})
					return err
				}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				clock := newFakeClock()
				st := be.NewStore(t)
				a := openEngine(t, st.Config(engine.Config{Now: clock.Now, Lifecycle: tc.a}))
				b := openEngine(t, st.Config(engine.Config{Now: clock.Now, Lifecycle: tc.b}))
				for _, th := range tc.before {
					say(t, b, "ana", th, "said in "+th)
					clock.Add(time.Second)
				}
				clock.Add(2 * time.Hour)
				raced := tc.before[0]
				var late *engine.AppendResult
				appended := make(chan error, 1)
				var once sync.Once
				engine.SetAfterEraseGuard(a, func() {
					once.Do(func() {
						go func() {
							var err error
							late, err = b.Append(ctx, engine.AppendRequest{ThreadID: raced, ResourceID: "ana",
								Messages: []engine.Message{user("", "late to "+raced)}})
							appended <- err
						}()
						// b's append either commits now (nothing orders it
						// after the erasure) or waits for the thread's lock.
						waitThreadLock(ctx, t, st.Config(engine.Config{}).Postgres, raced, appended)
					})
				})
				if err := tc.erase(ctx, a); err != nil {
					t.Fatal(err)
				}
				if err := <-appended; err != nil {
					t.Fatal("b's append:", err)
				}
				got, err := a.MessagesByID(ctx, "ana", late.IDs...)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || !slices.Equal(late.Seqs, []int64{1}) {
					t.Fatalf("b's append was acknowledged at seqs %v; stored now: %d of its 1 message, want it stored at seq 1 of a fresh thread (appended after the erasure)", late.Seqs, len(got))
				}
			})
		}
	})
}

// waitThreadLock returns once the append reported on appended has finished
// (its result is put back) or a session waits for the append lock of
// thread (msgstore's threadLock, 0x6d6e0001) in the schema dsn names,
// asking pg_locks on a connection of its own every few milliseconds until
// ctx ends.
func waitThreadLock(ctx context.Context, t *testing.T, dsn, thread string, appended chan error) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	for {
		select {
		case err := <-appended:
			appended <- err
			return
		case <-ctx.Done():
			t.Error("neither finished nor waiting:", ctx.Err())
			return
		case <-time.After(5 * time.Millisecond):
		}
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid = $1::int4::oid AND objid = hashtext(current_schema() || '/' || $2::text)::oid AND objsubid = 2`,
			0x6d6e0001, thread).Scan(&n)
		if err != nil {
			t.Error(fmt.Errorf("pg_locks: %w", err))
			return
		}
		if n > 0 {
			return
		}
	}
}
