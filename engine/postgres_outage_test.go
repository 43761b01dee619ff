package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// This file tests the engine on a Postgres that stops answering, or whose
// connections are cut, through a loopback proxy between pgx and the test
// server (pgtest.Proxy): a real server and a real network fault.

// outageGuard bounds how long a test waits for a call that should return
// once its context ends: generous, so only a hang fails it.
const outageGuard = 20 * time.Second

// returnsWithin runs fn and fails t when it has not returned after guard.
func returnsWithin(t *testing.T, guard time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guard):
		buf := make([]byte, 1<<20)
		t.Logf("%s", buf[:runtime.Stack(buf, true)])
		t.Fatalf("%s did not return within %s with the database hanging", what, guard)
		return nil
	}
}

// openBehindProxy opens an engine with working memory on a new schema
// behind a proxy.
func openBehindProxy(t *testing.T, cfg engine.Config) (*engine.Engine, *pgtest.Proxy) {
	t.Helper()
	px := pgtest.NewProxy(t, pgtest.DSN(t))
	cfg.Postgres = px.DSN()
	if cfg.Embedder == nil {
		cfg.Embedder = recall.HashEmbedder{}
	}
	cfg.WorkingMemory = &working.Config{Schema: json.RawMessage(wmSchema)}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, px
}

func appendT1(ctx context.Context, e *engine.Engine, id, content string) error {
	_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "u1", Messages: []engine.Message{{ID: id, Role: engine.RoleUser, Content: content}}})
	return err
}

// TestPostgresHang: with the database hanging (connections open, nothing
// answered: a black hole, a stopped server), every call returns
// context.DeadlineExceeded once its deadline passes, and Close returns
// within its bound rather than after the 15 s and more pgx takes to close
// connections the server does not answer (fails without closePool's
// bound: "CloseContext did not return within 10s").
func TestPostgresHang(t *testing.T) {
	t.Parallel() // waits out timers and deadlines: overlaps the other waiting tests at the end of the run
	e, px := openBehindProxy(t, engine.Config{})
	ctx := context.Background()
	if err := appendT1(ctx, e, "m1", "I moved to Porto"); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	wm, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	px.Hang()
	for _, c := range []struct {
		name string
		fn   func(ctx context.Context) error
	}{
		{"Append", func(ctx context.Context) error { return appendT1(ctx, e, "m2", "then Lisbon") }},
		{"LoadContext", func(ctx context.Context) error {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", ResourceID: "u1", Query: "Porto"})
			return err
		}},
		{"Search", func(ctx context.Context) error {
			_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "Porto"})
			return err
		}},
		{"DeleteThread", func(ctx context.Context) error {
			_, err := e.DeleteThread(ctx, "t1")
			return err
		}},
		{"WorkingMemory.Merge", func(ctx context.Context) error {
			key, err := wm.Key("t1", "u1")
			if err != nil {
				return err
			}
			_, err = wm.Merge(ctx, key, map[string]any{"city": "Lisbon"}, working.Origin{})
			return err
		}},
		{"SyncIndexes", e.SyncIndexes},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := returnsWithin(t, outageGuard, c.name, func() error { return c.fn(ctx) })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with the database hanging: %v, want context.DeadlineExceeded", c.name, err)
		}
	}
	// The drainer's read waits on the database: Close waits for it until
	// its ctx ends (1 s), gives its rows back for at most 2 s and closes
	// the pool for at most PoolCloseWait. Generous guard.
	closeCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := returnsWithin(t, time.Second+2*time.Second+engine.PoolCloseWait+5*time.Second, "CloseContext", func() error {
		return e.CloseContext(closeCtx)
	}); err != nil {
		t.Fatalf("CloseContext: %v", err)
	}
}

// gatedEmbedder is the hash embedder, whose Embed tells started and then
// waits for release (or its ctx).
type gatedEmbedder struct {
	recall.HashEmbedder
	once    sync.Once
	started chan struct{}
	release chan struct{}
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.once.Do(func() { close(g.started) })
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.HashEmbedder.Embed(ctx, texts)
}

// TestPostgresCloseDrainerHung: Close while the outbox drainer's batch
// waits on a database that stopped answering returns within its
// documented bound (the caller's context, here 1 s, then 2 s to give the
// rows back and PoolCloseWait), and nothing acknowledged is lost: a new
// engine on the database, once it answers again, embeds the batch.
func TestPostgresCloseDrainerHung(t *testing.T) {
	t.Parallel() // waits out timers and deadlines: overlaps the other waiting tests at the end of the run
	emb := &gatedEmbedder{started: make(chan struct{}), release: make(chan struct{})}
	e, px := openBehindProxy(t, engine.Config{Embedder: emb})
	ctx := context.Background()
	if err := appendT1(ctx, e, "m1", "I moved to Porto"); err != nil {
		t.Fatal(err)
	}
	<-emb.started // the drainer claimed the row and is embedding it
	px.Hang()
	close(emb.release) // its next statement, storing the vector, hangs
	closeCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := returnsWithin(t, time.Second+2*time.Second+engine.PoolCloseWait+5*time.Second, "CloseContext", func() error {
		return e.CloseContext(closeCtx)
	}); err != nil {
		t.Fatalf("CloseContext: %v", err)
	}
	px.Resume()
	// The row the drainer held stays leased (its release found the
	// database hanging): the message is found lexically meanwhile.
	e2, err := engine.Open(ctx, engine.Config{Postgres: px.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res, err := e2.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "Porto"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("search after the outage: %+v, %v; want the message", res, err)
	}
}

// TestPostgresSevered: when every connection is cut (a server restart, a
// failover), the next call (an append, a working-memory update) succeeds
// without reopening the engine: a pooled connection whose server end is
// closed is pinged, found lost and replaced before it is used (fails
// without pgstore's shouldPing check: "engine: begin: conn closed"). Appends racing the cuts are whole or
// absent: every acknowledged one is stored once and found, and the seqs
// have no gap (enginetest's checks when the test ends).
func TestPostgresSevered(t *testing.T) {
	px := pgtest.NewProxy(t, pgtest.DSN(t))
	e := enginetest.MustOpen(t, engine.Config{Postgres: px.DSN(), WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)}})
	ctx := context.Background()
	wm, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := appendT1(ctx, e, fmt.Sprintf("warm%d", i), "warming the pool"); err != nil {
			t.Fatal(err)
		}
		px.Sever()
		if err := appendT1(ctx, e, fmt.Sprintf("after%d", i), "the first append after a restart"); err != nil {
			t.Fatalf("append %d right after the connections were cut: %v", i, err)
		}
		px.Sever()
		if _, err := wm.Merge(ctx, "thread:t1", map[string]any{"city": fmt.Sprint("Porto ", i)}, working.Origin{}); err != nil {
			t.Fatalf("working-memory update %d right after the connections were cut: %v", i, err)
		}
	}
	// Appenders race cuts: an append may fail (an outage), never half.
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, i)
				if err := appendT1(ctx, e, id, "racing message "+id); err == nil {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				} else if !e.Unavailable(err) {
					t.Errorf("append %s: %v, want success or an outage", id, err)
				}
			}
		})
	}
	for range 5 {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		for { // no sleep: cut once the appenders made progress
			mu.Lock()
			more := len(acked) > n+3
			mu.Unlock()
			if more {
				break
			}
			time.Sleep(time.Millisecond)
		}
		px.Sever()
	}
	close(stop)
	wg.Wait()
	// A statement in flight at a cut fails (an outage); the next gets
	// another connection.
	err = e.SyncIndexes(ctx)
	for i := 0; err != nil && e.Unavailable(err) && i < 3; i++ {
		err = e.SyncIndexes(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.MessagesByID(ctx, "u1", acked...)
	if err != nil || len(got) != len(acked) {
		t.Fatalf("acknowledged %d appends, %d stored (%v)", len(acked), len(got), err)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "racing message " + acked[len(acked)-1], Options: recall.Options{TopK: 1}})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search for the last acknowledged append: %+v, %v", res, err)
	}
}

// commitGate holds the commits of the transactions that write a table
// on the server until Open, through a deferred constraint trigger that
// waits for an advisory lock the gate holds: the test knows the
// transaction reached its COMMIT, and can lose its answer
// (Proxy.HangReplies, Proxy.Sever) once the server commits it.
type commitGate struct {
	conn *pgx.Conn
	key  int64
	app  string // the application_name of the engine's connections
}

// newCommitGate closes a gate on the commits of statements event (INSERT,
// UPDATE) on table in dsn's schema, for connections named app.
func newCommitGate(t *testing.T, dsn, table, event, app string) *commitGate {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	g := &commitGate{conn: conn, key: time.Now().UnixNano(), app: app}
	for _, q := range []string{
		fmt.Sprintf(`SELECT pg_advisory_lock(%d)`, g.key),
		fmt.Sprintf(`CREATE FUNCTION commit_gate() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN PERFORM pg_advisory_lock(%d); PERFORM pg_advisory_unlock(%d); RETURN NULL; END $$`, g.key, g.key),
		fmt.Sprintf(`CREATE CONSTRAINT TRIGGER commit_gate AFTER %s ON %s DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW EXECUTE FUNCTION commit_gate()`, event, table),
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return g
}

// waitCommitting waits until a connection of the engine waits at the gate.
func (g *commitGate) waitCommitting(t *testing.T) {
	t.Helper()
	waitRows(t, g.conn, 1, `SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'advisory'`, g.app)
}

// open lets the commits through and removes the trigger.
func (g *commitGate) open(t *testing.T) {
	t.Helper()
	if _, err := g.conn.Exec(context.Background(), fmt.Sprintf(`SELECT pg_advisory_unlock(%d)`, g.key)); err != nil {
		t.Fatal(err)
	}
}

// waitRows polls query on conn (straight to the server, not through the
// proxy) until it counts want rows. It fails t after outageGuard.
func waitRows(t *testing.T, conn *pgx.Conn, want int, query string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), outageGuard)
	defer cancel()
	for {
		var n int
		if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v (waiting for %d rows)", query, err, want)
		}
		if n == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// syncAfterOutage is SyncIndexes, again when it fails on an outage (a
// connection cut under it).
func syncAfterOutage(t *testing.T, e *engine.Engine) {
	t.Helper()
	err := returnsWithin(t, outageGuard, "SyncIndexes", func() error {
		err := e.SyncIndexes(context.Background())
		for i := 0; err != nil && e.Unavailable(err) && i < 3; i++ {
			err = e.SyncIndexes(context.Background())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// appName is a new application_name for an engine's connections.
func appName() string { return fmt.Sprintf("mnemo-outage-%d", time.Now().UnixNano()) }

// TestPostgresClaimAnswerLost: the drainer's claim of outbox rows commits
// on the server and its answer is lost with the connection (a restart
// right after the UPDATE … RETURNING committed): the drainer releases
// what that claim stamped, so the rows do not wait for the lease to end
// (2 minutes) and SyncIndexes returns once they are embedded. Fails
// without the release: "SyncIndexes did not return within 20s".
func TestPostgresClaimAnswerLost(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := pgtest.NewProxy(t, dsn)
	app := appName()
	e := enginetest.MustOpen(t, engine.Config{Postgres: px.DSN() + "&application_name=" + app})
	ctx := context.Background()
	release := e.HoldDrain()
	err := appendT1(ctx, e, "m1", "I moved to Porto")
	if err != nil {
		release()
		t.Fatal(err)
	}
	gate := newCommitGate(t, dsn, "outbox", "UPDATE", app)
	release() // the drainer claims m1's row and waits at the gate
	gate.waitCommitting(t)
	px.HangReplies()
	gate.open(t)
	waitRows(t, gate.conn, 1, `SELECT COUNT(*) FROM outbox WHERE not_before > $1`, time.Now().Add(time.Minute).UnixMilli())
	px.Sever()
	px.Resume()
	syncAfterOutage(t, e) // enginetest's check then finds m1's vector
}

// TestPostgresAppendAnswerLost: an append whose commit reached the server
// and whose answer was lost with the connection fails as an outage
// (Unavailable), is whole (its message stored, its seq without a gap),
// and the caller's retry with the same message id is a duplicate, not a
// second copy.
func TestPostgresAppendAnswerLost(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := pgtest.NewProxy(t, dsn)
	app := appName()
	e := enginetest.MustOpen(t, engine.Config{Postgres: px.DSN() + "&application_name=" + app})
	ctx := context.Background()
	if err := appendT1(ctx, e, "m1", "I moved to Porto"); err != nil {
		t.Fatal(err)
	}
	gate := newCommitGate(t, dsn, "messages", "INSERT", app)
	done := make(chan error, 1)
	go func() { done <- appendT1(ctx, e, "m2", "then Lisbon") }()
	gate.waitCommitting(t)
	px.HangReplies()
	gate.open(t)
	waitRows(t, gate.conn, 2, `SELECT COUNT(*) FROM messages`)
	px.Sever()
	px.Resume()
	err := returnsWithin(t, outageGuard, "Append", func() error { return <-done })
	if err == nil || !e.Unavailable(err) {
		t.Fatalf("append whose answer was lost: %v, want an outage error", err)
	}
	var res *engine.AppendResult
	err = returnsWithin(t, outageGuard, "Append", func() error {
		var err error
		res, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "u1", Messages: []engine.Message{{ID: "m2", Role: engine.RoleUser, Content: "then Lisbon"}}})
		for i := 0; err != nil && e.Unavailable(err) && i < 3; i++ {
			res, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "u1", Messages: []engine.Message{{ID: "m2", Role: engine.RoleUser, Content: "then Lisbon"}}})
		}
		return err
	})
	if err != nil || res.Stored != 0 || res.Duplicates != 1 || fmt.Sprint(res.Seqs) != "[2]" {
		t.Fatalf("retried append: %+v, %v; want a duplicate at seq 2", res, err)
	}
	syncAfterOutage(t, e)
}

// TestPostgresOutageErrorsHidePassword: with the database gone (the proxy
// refusing connections, pooled ones closed), the calls' errors and the
// engine's log say an outage (Unavailable) without the DSN's password.
func TestPostgresOutageErrorsHidePassword(t *testing.T) {
	const password = "s3cret-pw"
	dsn := strings.Replace(pgtest.DSN(t), "postgres://postgres@", "postgres://postgres:"+password+"@", 1)
	if !strings.Contains(dsn, password) {
		t.Skipf("the DSN %q has no user to give a password to", pgtest.DSN(t))
	}
	px := pgtest.NewProxy(t, dsn)
	var log enginetest.SyncBuffer
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.DSN(), Embedder: recall.HashEmbedder{},
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := appendT1(ctx, e, "m1", "I moved to Porto"); err != nil {
		t.Fatal(err)
	}
	px.Close()
	for name, fn := range map[string]func() error{
		"Append": func() error { return appendT1(ctx, e, "m2", "then Lisbon") },
		"Search": func() error {
			_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "Porto"})
			return err
		},
		"GetThread":   func() error { _, err := e.GetThread(ctx, "t1"); return err },
		"SyncIndexes": func() error { return e.SyncIndexes(ctx) },
		"Open": func() error {
			e2, err := engine.Open(ctx, engine.Config{Postgres: px.DSN()})
			if err == nil {
				e2.Close()
			}
			return err
		},
	} {
		for range 2 { // the pooled connection found closed, then a new one refused
			err := fn()
			if err == nil || (name != "Open" && !e.Unavailable(err)) {
				t.Fatalf("%s with the database gone: %v, want an outage error", name, err)
			}
			if strings.Contains(err.Error(), password) {
				t.Fatalf("%s: error shows the password: %v", name, err)
			}
		}
	}
	if strings.Contains(log.String(), password) {
		t.Fatalf("the log shows the password:\n%s", log.String())
	}
}
