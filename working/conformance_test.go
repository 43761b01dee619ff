package working_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestRacingWriters: two pools on one database (two processes) write one
// state from the same version at once, with no retry. Exactly one writes
// the next version; the other gets ErrConflict and writes nothing. Both
// the first version (the INSERT) and a later one (the UPDATE on the
// version) are raced.
func TestRacingWriters(t *testing.T) { forEachBackend(t, testRacingWriters) }

func testRacingWriters(t *testing.T, b backend) {
	ctx := context.Background()
	db1, place := b.openDB(t)
	db2 := b.openAgain(t, place)
	key := working.ThreadKey("t")
	for _, from := range []int64{0, 1} {
		// Redact's second call in a Set comes after the state is read and
		// before the compare-and-swap: both racers wait there for each
		// other, so both swap over version from.
		var read sync.WaitGroup
		read.Add(2)
		racer := func(db *sql.DB) *working.Memory {
			calls := 0
			return mustNew(t, db, working.Config{Template: "# Notes\n", MaxRetries: 1, Redact: func(s string) string {
				if calls++; calls == 2 {
					read.Done()
					read.Wait()
				}
				return s
			}})
		}
		ms := []*working.Memory{racer(db1), racer(db2)}
		contents := []string{fmt.Sprintf("# Notes\n- first racer after v%d\n", from), fmt.Sprintf("# Notes\n- second racer after v%d\n", from)}
		results, errs := make([]working.Result, 2), make([]error, 2)
		var wg sync.WaitGroup
		for i, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = m.Set(ctx, key, contents[i], working.Origin{})
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Fatalf("from v%d: both racers wrote: %+v", from, results)
			case !errors.Is(err, working.ErrConflict):
				t.Fatalf("from v%d: racer %d: %v, want nil or ErrConflict", from, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("from v%d: no racer wrote: %v", from, errs)
		}
		if r := results[winner]; !r.Changed || r.State.Version != from+1 || r.State.Content != contents[winner] {
			t.Fatalf("from v%d: winner's result %+v", from, r)
		}
		if st := mustGet(t, ms[1-winner], key); st.Version != from+1 || st.Content != contents[winner] {
			t.Fatalf("from v%d: stored %q v%d, want the winner's v%d", from, st.Content, st.Version, from+1)
		}
		if got, want := historyLen(t, ms[0], key), int(from+1); got != want {
			t.Fatalf("from v%d: %d versions in the history, want %d", from, got, want)
		}
	}
}

// TestStoredConfig: SaveConfig stores a memory's configuration (through
// the pool or a transaction) for LoadConfig, and storing the one already
// stored writes nothing.
func TestStoredConfig(t *testing.T) { forEachBackend(t, testStoredConfig) }

func testStoredConfig(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	if _, ok, err := working.LoadConfig(ctx, db); ok || err != nil {
		t.Fatalf("LoadConfig of a new database: ok=%v, %v", ok, err)
	}
	now := time.UnixMilli(1_700_000_000_000)
	clock := func() time.Time { return now }
	updatedAt := func() int64 {
		t.Helper()
		var ms int64
		if err := store.Bound(db).QueryRowContext(ctx, `SELECT updated_at FROM working_config WHERE id = ?`, 1).Scan(&ms); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	m := mustNew(t, db, working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource, ReadOnly: true, MaxChars: 500, Now: clock})
	for range 2 { // the second stores the same: nothing is written
		if err := m.SaveConfig(ctx, db); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	if got, want := updatedAt(), int64(1_700_000_000_000); got != want {
		t.Fatalf("updated_at = %d after storing the same configuration again, want %d", got, want)
	}
	var schema bytes.Buffer
	if err := json.Compact(&schema, m.Schema()); err != nil {
		t.Fatal(err)
	}
	cfg, ok, err := working.LoadConfig(ctx, db)
	if err != nil || !ok || cfg.Mode != working.ModeSchema || cfg.Scope != working.ScopeResource || !cfg.ReadOnly || cfg.MaxChars != 500 ||
		string(cfg.Schema) != schema.String() {
		t.Fatalf("LoadConfig = %+v, %v, %v", cfg, ok, err)
	}
	tm := mustNew(t, db, working.Config{Template: "# Notes\n", Now: clock})
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.SaveConfig(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	cfg, ok, err = working.LoadConfig(ctx, db)
	if err != nil || !ok || cfg.Mode != working.ModeTemplate || cfg.Template != "# Notes\n" || cfg.Schema != nil || cfg.ReadOnly {
		t.Fatalf("LoadConfig after a new configuration = %+v, %v, %v", cfg, ok, err)
	}
	if got, want := updatedAt(), now.UnixMilli(); got != want {
		t.Fatalf("updated_at = %d, want %d", got, want)
	}
}
