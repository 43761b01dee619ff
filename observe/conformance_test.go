package observe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// TestRacingObservers: two observers on two pools of one database (two
// processes) observe the same range at once. On Postgres one reaches the
// model while the other waits for the thread's observer lock
// (lockAcross), then finds the record: one model call (two before
// lockAcross); a third connection holds the observations table (LOCK
// TABLE … IN SHARE MODE) until the first waits in its store transaction
// and the second for the advisory lock. On SQLite, where a data directory
// has one process (the engine's lock file) and the observer takes no lock
// across pools, both reach the model (neither has a record yet) and store
// at once. Either way the journal keeps the first record, both return its
// bytes and the one observation stored for the range, and afterwards
// neither calls the model for it again.
func TestRacingObservers(t *testing.T) { forEachBackend(t, testRacingObservers) }

func testRacingObservers(t *testing.T, b backend) {
	arrived := make(chan struct{}, 2)
	both := make(chan struct{})
	var once sync.Once
	f := newFakeModel(t, func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		arrived <- struct{}{}
		if b.Name == "postgres" { // the other racer waits for this one's lock
			return scripted(req)
		}
		if len(arrived) == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(10 * time.Second): // reported below as one call
		}
		return scripted(req)
	})
	src := &memSource{}
	src.add("t", 10, user("I live in Porto"), assistant("Noted"), user("My cat is Mia"), assistant("Nice"))
	place := b.Place(t)
	app := ""
	if b.Name == "postgres" {
		app = fmt.Sprintf("mnemo-observe-race-%d", time.Now().UnixNano())
		place += "&application_name=" + app
	}
	envs := []*env{b.openEnv(t, place, src, f.model(t), observe.Config{}), b.openEnv(t, place, src, f.model(t), observe.Config{})}
	var unlock func()
	if app != "" {
		unlock = holdObservations(t, envs[0].db, app)
	}
	obs, out, errs := make([]*observe.Observation, 2), make([][]byte, 2), make([]error, 2)
	var wg sync.WaitGroup
	for i, e := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs[i], out[i], errs[i] = e.obs.ObserveRange(ctx, "t", 1, 4)
		}()
	}
	if unlock != nil {
		unlock()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("observer %d: %v", i, err)
		}
	}
	calls := int64(2) // both racers reach the model
	if b.Name == "postgres" {
		calls = 1 // one at a time: the second finds the record
	}
	if got := f.count(); got != calls {
		t.Fatalf("requests=%d, want %d", got, calls)
	}
	if string(out[0]) != string(out[1]) || obs[0].ID != obs[1].ID || obs[0].Content != obs[1].Content {
		t.Fatalf("the racers differ: %q/%s vs %q/%s", out[0], obs[0].ID, out[1], obs[1].ID)
	}
	if rows := list(t, envs[1], "t", true); len(rows) != 1 || rows[0].ID != obs[0].ID {
		t.Fatalf("rows %+v, want the one observation %s", rows, obs[0].ID)
	}
	for i, e := range envs {
		o, b, err := e.obs.ObserveRange(ctx, "t", 1, 4)
		if err != nil || o.ID != obs[0].ID || string(b) != string(out[0]) {
			t.Fatalf("observer %d again: %+v, %q, %v", i, o, b, err)
		}
	}
	if got := f.count(); got != calls {
		t.Fatalf("requests=%d after both observed again, want %d", got, calls)
	}
}

// holdObservations takes, on a connection of db (Postgres), a SHARE lock
// on the observations table, which readers pass and writers wait for.
// The returned func waits until two sessions named app wait for a
// relation or advisory lock (both racers are inside their store
// transaction) and releases it.
func holdObservations(t *testing.T, db *sql.DB, app string) func() {
	t.Helper()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE observations IN SHARE MODE`); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		defer tx.Rollback()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var waiting int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE application_name = $1 AND wait_event_type = 'Lock' AND wait_event IN ('relation', 'advisory')`, app).Scan(&waiting); err != nil {
				t.Error(err)
				return
			}
			if waiting >= 2 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d racers wait for the observations table after 20 s, want 2", waiting)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// TestInvalidateAcrossConnections: an erasure on one pool invalidates
// what an observer on another pool stored, and forgets its memo entries:
// the observer's next call for the range reaches the model again and
// stores a live observation both pools see. A reflection the observer
// computes while the erasure's transaction is open waits for it and is
// refused (ErrSourcesChanged), storing nothing.
func TestInvalidateAcrossConnections(t *testing.T) {
	forEachBackend(t, testInvalidateAcrossConnections)
}

func testInvalidateAcrossConnections(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	src := &memSource{}
	src.add("t", 10, user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f"))
	place := b.Place(t)
	cfg := observe.Config{Threshold: 20, ChunkTokens: 20, RecentN: -1}
	e1, e2 := b.openEnv(t, place, src, f.model(t), cfg), b.openEnv(t, place, src, f.model(t), cfg)
	res, err := e1.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if err != nil || len(res.Observations) != 3 {
		t.Fatalf("setup: %+v, %v", res, err)
	}
	o34 := res.Observations[1]

	// The erasure of seq 4 on the other pool, open while e1 reflects:
	// 3..4 and the later 5..6 go.
	tx, err := store.Begin(ctx, e2.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ids, err := observe.Invalidate(ctx, tx, "t", 4, time.Now())
	if err != nil || len(ids) != 2 || ids[0] != o34.ID {
		t.Fatalf("Invalidate = %v, %v; want [%s %s]", ids, err, o34.ID, res.Observations[2].ID)
	}
	called := make(chan struct{})
	f.setAnswer(func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		close(called)
		return scripted(req)
	})
	reflected := make(chan error, 1)
	go func() {
		r, err := e1.obs.Reflect(ctx, "t", true)
		if err == nil && r != nil {
			err = fmt.Errorf("reflection %s stored over erased sources", r.ID)
		}
		reflected <- err
	}()
	<-called
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-reflected; !errors.Is(err, observe.ErrSourcesChanged) {
		t.Fatalf("Reflect racing the erasure: %v, want ErrSourcesChanged", err)
	}
	for _, e := range []*env{e1, e2} {
		if live := list(t, e, "t", false); len(live) != 1 || live[0].ToSeq != 2 {
			t.Fatalf("live after the erasure: %+v, want only 1..2", live)
		}
		if _, err := e.j.Recorded(ctx, journal.ScopeMemo, o34.MemoKey); !errors.Is(err, journal.ErrNotFound) {
			t.Fatalf("memo entry of the erased range: %v, want ErrNotFound", err)
		}
	}

	// Seq 4 is gone from the source; the rest is observed again by e1.
	f.setAnswer(scripted)
	src.turns["t"] = append(src.turns["t"][:3], src.turns["t"][4:]...)
	n := f.count()
	res, err = e1.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
	if err != nil || len(res.Observations) == 0 || res.Observations[0].FromSeq != 3 || f.count() == n {
		t.Fatalf("re-observation: %+v, %v (model calls %d -> %d)", res, err, n, f.count())
	}
	live := list(t, e2, "t", false)
	if got, want := len(live), 1+len(res.Observations); got != want || live[1].ID != res.Observations[0].ID {
		t.Fatalf("live on the other pool: %+v, want 1..2 and %+v", live, res.Observations)
	}
}

// TestEntomb: erasure's entombing in one transaction. EntombThread moves a
// thread's rows to its tombstone, the erased resource's to its tombstone
// and other owners' rows unchanged; with only, just that resource's rows
// of the thread; EntombResource moves the resource's remaining rows. The
// statements use numbered placeholders (?1…?5).
func TestEntomb(t *testing.T) { forEachBackend(t, testEntomb) }

func testEntomb(t *testing.T, b backend) {
	e := b.openEnv(t, b.Place(t), &memSource{}, newFakeModel(t, scripted).model(t), observe.Config{})
	for _, r := range [][3]string{{"A", "t1", "r1"}, {"B", "t1", "r2"}, {"C", "t2", "r1"}, {"D", "t3", "r2"}, {"E", "t3", "r3"}} {
		if _, err := store.Bound(e.db).ExecContext(ctx, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
			VALUES (?, ?, ?, 1, 2, 'observation', '', 0)`, r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := store.Begin(ctx, e.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	steps := []error{
		observe.EntombThread(ctx, tx, "t1", "tomb:t1", "r1", "tomb:r1", ""),
		observe.EntombThread(ctx, tx, "t3", "tomb:t3", "", "", "r2"),
		observe.EntombResource(ctx, tx, "r1", "tomb:r1"),
	}
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{"A": {"tomb:t1", "tomb:r1"}, "B": {"tomb:t1", "r2"}, "C": {"t2", "tomb:r1"}, "D": {"tomb:t3", "r2"}, "E": {"t3", "r3"}}
	for _, r := range []string{"tomb:r1", "r2", "r3"} {
		obs, err := observe.List(ctx, e.db, observe.Filter{ResourceID: r, All: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs {
			if w := want[o.ID]; o.ThreadID != w[0] || o.ResourceID != w[1] {
				t.Errorf("%s: thread %s, resource %s; want %v", o.ID, o.ThreadID, o.ResourceID, w)
			}
			delete(want, o.ID)
		}
	}
	if len(want) != 0 {
		t.Fatalf("rows not found under their expected resource: %v", want)
	}
}

// TestStoreAfterErasure: an observer on one pool reads the recorded
// answer of a range, then an erasure of one of its turns commits on
// another pool before the observer stores: the observer stores nothing
// (ErrTurnsErased) and no live observation holds the erased turn. Before,
// the answer read before the erasure was stored after it.
func TestStoreAfterErasure(t *testing.T) { forEachBackend(t, testStoreAfterErasure) }

func testStoreAfterErasure(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	inner := &memSource{}
	inner.add("t", 10, user("a"), assistant("b"), user("c"), assistant("d"))
	src := &signalSource{memSource: inner, read: make(chan struct{}, 8)}
	place := b.Place(t)
	app := ""
	if b.Name == "postgres" {
		app = fmt.Sprintf("mnemo-observe-erased-%d", time.Now().UnixNano())
		place += "&application_name=" + app
	}
	e1 := b.openEnvSource(t, place, src, f.model(t))
	e2 := b.openEnv(t, place, inner, f.model(t), observe.Config{})
	o, _, err := e1.obs.ObserveRange(ctx, "t", 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	<-src.read
	tx, err := store.Begin(ctx, e2.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := observe.Invalidate(ctx, tx, "t", 4, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The observer reads the turns and the recorded answer (the erasure
	// is not committed), then waits for the erasure's lock to store.
	f.setAnswer(func(openai.ChatCompletionRequest) (int, string, time.Duration) {
		return 500, "no model call expected", 0
	})
	stored := make(chan error, 1)
	go func() {
		_, _, err := e1.obs.ObserveRange(ctx, "t", 3, 4)
		stored <- err
	}()
	<-src.read
	waitForLock(t, e2.db, app)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-stored; !errors.Is(err, observe.ErrTurnsErased) {
		t.Fatalf("store after the erasure: %v, want ErrTurnsErased", err)
	}
	if live := list(t, e2, "t", false); len(live) != 0 {
		t.Fatalf("live after erasing seq 4 of %s: %+v", o.ID, live)
	}
}

// signalSource is a memSource that reports each read on read.
type signalSource struct {
	*memSource
	read chan struct{}
}

func (s *signalSource) Messages(ctx context.Context, threadID string, from, to int64) ([]observe.Turn, error) {
	defer func() { s.read <- struct{}{} }()
	return s.memSource.Messages(ctx, threadID, from, to)
}

// openEnvSource is openEnv with any Source.
func (b backend) openEnvSource(t *testing.T, place string, src observe.Source, m observe.Model) *env {
	t.Helper()
	e := b.openEnv(t, place, nil, m, observe.Config{})
	o, err := observe.New(observe.Config{DB: e.db, Journal: e.j, Source: src, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	e.obs = o
	return e
}

// waitForLock waits until a session named app waits for a lock (Postgres);
// on SQLite (app empty), where the observer waits in BEGIN IMMEDIATE
// unseen, it gives it 200 ms after its reads.
func waitForLock(t *testing.T, db *sql.DB, app string) {
	t.Helper()
	if app == "" {
		time.Sleep(200 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var waiting int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
	}
	t.Fatal("the observer does not wait for the erasure's lock after 20 s")
}

// TestErasureDuringModelCall: an erasure of a turn commits on another
// pool (and the turn leaves the Source, as the engine deletes it in the
// same transaction) while the observer's model call for the range is
// running: the answer, distilled from the erased turn and recorded after
// the erasure, is not stored (ErrTurnsErased), and the next call observes
// the turns that are left. Before, it was stored.
func TestErasureDuringModelCall(t *testing.T) { forEachBackend(t, testErasureDuringModelCall) }

func testErasureDuringModelCall(t *testing.T, b backend) {
	calling, answer := make(chan struct{}), make(chan struct{})
	f := newFakeModel(t, func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		close(calling)
		<-answer
		return scripted(req)
	})
	src := &memSource{}
	src.add("t", 10, user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f"))
	place := b.Place(t)
	cfg := observe.Config{Threshold: 1, ChunkTokens: 1000, RecentN: -1}
	e1, e2 := b.openEnv(t, place, src, f.model(t), cfg), b.openEnv(t, place, src, f.model(t), cfg)
	observed := make(chan error, 1)
	go func() {
		_, err := e1.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
		observed <- err
	}()
	<-calling
	tx, err := store.Begin(ctx, e2.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := observe.Invalidate(ctx, tx, "t", 4, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	src.turns["t"] = append(src.turns["t"][:3:3], src.turns["t"][4:]...)
	src.mu.Unlock()
	close(answer)
	if err := <-observed; !errors.Is(err, observe.ErrTurnsErased) {
		t.Fatalf("Observe across the erasure: %v, want ErrTurnsErased", err)
	}
	if live := list(t, e2, "t", true); len(live) != 0 {
		t.Fatalf("rows after the erasure: %+v, want none", live)
	}
	f.setAnswer(scripted)
	res, err := e1.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if err != nil || len(res.Observations) != 1 {
		t.Fatalf("next call: %+v, %v", res, err)
	}
	if o := res.Observations[0]; o.FromSeq != 1 || o.ToSeq != 6 || strings.Contains(o.Content, "said: d") {
		t.Fatalf("next call observed %d..%d %q, want 1..6 without seq 4", o.FromSeq, o.ToSeq, o.Content)
	}
}
