package observe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

func TestInvalidate(t *testing.T) { forEachBackend(t, testInvalidate) }

func testInvalidate(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	src := &memSource{}
	src.add("t", 10, user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f"))
	src.add("u", 10, user("other thread"), assistant("ok"))
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 20, ChunkTokens: 20, RecentN: -1})
	res, err := e.obs.Observe(ctx, "t", observe.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observations) != 3 || res.Reflection == nil {
		t.Fatalf("setup: %d observations, reflection %v", len(res.Observations), res.Reflection)
	}
	if _, err := e.obs.Observe(ctx, "u", observe.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	o34 := res.Observations[1] // seq 3..4

	// Erase seq 4.
	tx, err := store.Begin(ctx, e.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := observe.Invalidate(ctx, tx, "t", 4, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 {
		t.Fatalf("invalidated %v, want 3..4, the later 5..6 and the reflection", ids)
	}
	live := list(t, e, "t", false)
	if len(live) != 1 || live[0].FromSeq != 1 || live[0].ToSeq != 2 {
		t.Fatalf("live after erasure: %+v (the untouched source 1..2 must be live again)", live)
	}
	for _, o := range list(t, e, "t", true) {
		if o.InvalidatedAt != nil && o.Content != "" {
			t.Fatalf("invalidated %s keeps content %q", o.ID, o.Content)
		}
	}
	if _, err := e.j.Recorded(ctx, journal.ScopeMemo, o34.MemoKey); err == nil {
		t.Fatal("memo entry of the erased range survived")
	}
	if got := list(t, e, "u", false); len(got) != 1 {
		t.Fatalf("other thread touched: %+v", got)
	}
	// The watermark falls back to 2: the surviving turns 3, 5, 6 are
	// observed again (seq 4 is gone from the source, as erasure removes it).
	if got, want := watermark(t, e, "t"), int64(2); got != want {
		t.Fatalf("watermark=%d, want %d", got, want)
	}
	src.turns["t"] = append(src.turns["t"][:3], src.turns["t"][4:]...)
	n := f.count()
	res, err = e.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observations) == 0 || res.Observations[0].FromSeq != 3 || f.count() == n {
		t.Fatalf("re-observation after erasure: %+v (model calls %d -> %d)", res.Observations, n, f.count())
	}
	for _, o := range res.Observations {
		if strings.Contains(o.Content, "said: d") {
			t.Fatalf("erased turn observed again: %q", o.Content)
		}
	}
	// Erase the whole thread: the watermark falls to 0.
	tx, _ = store.Begin(ctx, e.db, nil)
	if _, err := observe.Invalidate(ctx, tx, "t", 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	tx.Commit()
	if got := watermark(t, e, "t"); got != 0 {
		t.Fatalf("watermark=%d after erasing the thread, want 0", got)
	}
}

// TestInvalidateKeepsOtherThreadsMemo: erasing thread "a" forgets its memo
// entries and keeps those of "ab", "a.b" and "a-", whose ids begin with
// "a" (the entries are a range of keys, memoKeyRange).
func TestInvalidateKeepsOtherThreadsMemo(t *testing.T) {
	forEachBackend(t, testInvalidateKeepsOtherThreadsMemo)
}

func testInvalidateKeepsOtherThreadsMemo(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	src := &memSource{}
	threads := []string{"a", "ab", "a.b", "a-"}
	for _, id := range threads {
		src.add(id, 10, user("hello "+id), assistant("ok"))
	}
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 1, ChunkTokens: 20, RecentN: -1})
	memo := map[string]string{}
	for _, id := range threads {
		res, err := e.obs.Observe(ctx, id, observe.Options{Force: true, NoReflect: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Observations) == 0 || res.Observations[0].MemoKey == "" {
			t.Fatalf("setup: thread %s: observations %+v", id, res.Observations)
		}
		memo[id] = res.Observations[0].MemoKey
	}
	tx, err := store.Begin(ctx, e.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := observe.Invalidate(ctx, tx, "a", 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, id := range threads {
		_, err := e.j.Recorded(ctx, journal.ScopeMemo, memo[id])
		if gone := err != nil; gone != (id == "a") {
			t.Errorf("thread %s: memo entry %q gone = %v after erasing thread a (err %v)", id, memo[id], gone, err)
		}
	}
}
