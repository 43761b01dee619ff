package working_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestEraseOwned covers working memory's erasure half: Invalidate rebuilds
// the states a resource owns without the tainted versions (skipping those
// skip selects), Delete removes one state with its history, DeleteOwned
// every state of the resource.
func TestEraseOwned(t *testing.T) { forEachBackend(t, testEraseOwned) }

func testEraseOwned(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	owner := func(_ context.Context, _ working.Querier, key string) (string, error) {
		if key == working.ThreadKey("other") {
			return "r2", nil
		}
		return "r1", nil
	}
	m := mustNew(t, db, working.Config{Template: "# Notes\n", OwnerOf: owner})
	keys := []string{working.ThreadKey("a"), working.ThreadKey("b"), working.ThreadKey("c"), working.ThreadKey("other")}
	for _, key := range keys {
		for i, c := range []string{"# Notes\n- one\n", "# Notes\n- one\n- two\n"} {
			if _, err := m.Set(ctx, key, c, working.Origin{RunID: "run" + string(rune('0'+i)), ToolCallID: "call_0"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	run := func(fn func(tx *store.Tx) (int, error)) int {
		t.Helper()
		tx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := fn(tx)
		if err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// run0 is tainted; thread b is skipped; thread other is r2's.
	n := run(func(tx *store.Tx) (int, error) {
		return working.Invalidate(ctx, tx, "r1", func(key string) bool { return key == working.ThreadKey("b") },
			func(working.Mode) string { return m.Initial() }, time.Now(),
			func(v working.Version) (bool, error) { return v.RunID == "run0", nil })
	})
	if got, want := n, 2; got != want { // threads a and c: their run0 versions
		t.Fatalf("invalidated=%d, want %d", got, want)
	}
	for key, want := range map[string]string{keys[0]: "# Notes\n- two\n", keys[1]: "# Notes\n- one\n- two\n", keys[2]: "# Notes\n- two\n", keys[3]: "# Notes\n- one\n- two\n"} {
		if st, err := m.Get(ctx, key); err != nil || st.Content != want {
			t.Errorf("%s = %q, %v; want %q", key, st.Content, err, want)
		}
	}
	// A drop error stops the erasure.
	boom := errors.New("boom")
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = working.Invalidate(ctx, tx, "r1", nil, nil, time.Now(), func(working.Version) (bool, error) { return false, boom })
	tx.Rollback()
	if !errors.Is(err, boom) {
		t.Fatalf("Invalidate with a failing drop: %v, want boom", err)
	}

	if got := run(func(tx *store.Tx) (int, error) { return working.Delete(ctx, tx, keys[1]) }); got != 3 { // state + 2 versions
		t.Fatalf("Delete removed %d rows, want 3", got)
	}
	// r1 still owns threads a and c: 2 states, 2 versions each (run1's,
	// rebuilt, and the rebuild's new version).
	if got := run(func(tx *store.Tx) (int, error) { return working.DeleteOwned(ctx, tx, "r1") }); got != 6 {
		t.Fatalf("DeleteOwned removed %d rows, want 6", got)
	}
	for i, key := range keys {
		st, err := m.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if kept := st.Version > 0; kept != (i == 3) {
			t.Errorf("%s version %d after the erasure (only r2's state stays)", key, st.Version)
		}
	}
}
