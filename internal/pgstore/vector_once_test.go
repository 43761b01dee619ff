package pgstore_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// pauseTracer holds its connection once, after the first statement
// holding sub has answered: paused is closed then, and the connection
// goes on once resume is closed. It is a pgx.QueryTracer.
type pauseTracer struct {
	sub            string
	once           sync.Once
	paused, resume chan struct{}
}

func newPauseTracer(sub string) *pauseTracer {
	return &pauseTracer{sub: sub, paused: make(chan struct{}), resume: make(chan struct{})}
}

// pauseKey marks the context of a statement holding the tracer's sub.
type pauseKey struct{}

func (p *pauseTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, p.sub) {
		return context.WithValue(ctx, pauseKey{}, true)
	}
	return ctx
}

func (p *pauseTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	if ctx.Value(pauseKey{}) == nil {
		return
	}
	p.once.Do(func() {
		close(p.paused)
		<-p.resume
	})
}

// TestOpenNewSchemasCreateVectorOnce: two openers of two new schemas of
// one database without pgvector, at once, both succeed, and the extension
// is created once: a opens public (where it creates the extension), b
// "b,public". Each migrates under its own schema's migration lock,
// which does not serialise them: both read that the database has no
// vector extension, and the second CREATE EXTENSION failed (`extension
// "vector" already exists`, 42710, or a duplicate key of
// pg_extension_name_index, 23505, when both ran at once), returned as
// ErrNoVector ("the pgvector extension (vector) is not available"). Opener
// a is held after its read until opener b has created the extension, or
// waits for a.
func TestOpenNewSchemasCreateVectorOnce(t *testing.T) {
	server := pgtest.ServerDSN(t)
	db := fmt.Sprintf("d_vector_once_%d", time.Now().UnixNano()%1e9)
	pgtest.Exec(t, server, "CREATE DATABASE "+db+" ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0")
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+db+" WITH (FORCE)") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	pgtest.Exec(t, u.String(), "CREATE SCHEMA b")
	a, b := pgtest.WithSearchPath(t, u.String(), "public"), pgtest.WithSearchPath(t, u.String(), "b,public")

	tr := newPauseTracer("FROM pg_extension")
	errs := make(chan error, 2)
	open := func(dsn string, tracer pgx.QueryTracer) {
		pool, err := pgstore.OpenTraced(t.Context(), dsn, tracer)
		if err == nil {
			pool.Close()
		}
		errs <- err
	}
	go open(a, tr)
	select {
	case <-tr.paused:
	case err := <-errs:
		t.Fatalf("opener a returned before reading pg_extension: %v", err)
	}
	go open(b, nil)
	waitDoneOrWaiting(t, u.String(), errs)
	close(tr.resume)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Open of a new schema while another opener of the database creates pgvector: %v", err)
		}
	}
}

// waitDoneOrWaiting waits until an opener has returned (its error is in
// errs) or a session of dsn's database waits for an advisory lock.
func waitDoneOrWaiting(t *testing.T, dsn string, errs chan error) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	deadline := time.Now().Add(60 * time.Second)
	for len(errs) == 0 {
		var waiting int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks
WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("opener b neither returned nor waits for a lock after 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
