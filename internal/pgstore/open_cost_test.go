package pgstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// tracer counts the connections a pool makes and the statements it sends
// (pgx.ConnectTracer and pgx.QueryTracer). It is safe for concurrent use.
type tracer struct {
	mu    sync.Mutex
	conns int
	stmts []string
}

func (tr *tracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.conns++
	return ctx
}

func (tr *tracer) TraceConnectEnd(context.Context, pgx.TraceConnectEndData) {}

func (tr *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.stmts = append(tr.stmts, d.SQL)
	return ctx
}

func (tr *tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// counts returns how many connections were made and how many statements
// sent hold each of subs.
func (tr *tracer) counts(subs ...string) (conns int, n []int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n = make([]int, len(subs))
	for _, s := range tr.stmts {
		for i, sub := range subs {
			if strings.Contains(s, sub) {
				n[i]++
			}
		}
	}
	return tr.conns, n
}

// TestOpenCost: Open makes one connection, the pool's first, which serves
// the caller's next statement; on a schema already migrated it reads the
// version with one statement and takes no lock. Before, Open connected
// twice (the migration on a connection of its own, then the pool's first)
// and read a migrated schema's version with two statements inside
// a transaction holding the migration lock.
func TestOpenCost(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	for _, c := range []struct {
		name        string
		wantVersion int // statements reading schema_version
	}{
		{"Fresh", -1},
		{"Migrated", 1},
	} {
		tr := &tracer{}
		pool, err := pgstore.OpenTraced(ctx, dsn, tr)
		if err != nil {
			t.Fatalf("%s: Open: %v", c.name, err)
		}
		if _, err := pool.Exec(ctx, `SELECT count(*) FROM threads`); err != nil {
			t.Fatal(err)
		}
		pool.Close()
		conns, n := tr.counts("schema_version", "pg_advisory_xact_lock")
		if conns != 1 {
			t.Errorf("%s: Open and a statement made %d connections, want 1", c.name, conns)
		}
		if c.wantVersion < 0 {
			continue
		}
		if n[0] != c.wantVersion || n[1] != 0 {
			t.Errorf("%s: %d statements on schema_version and %d migration locks, want %d and 0: %q",
				c.name, n[0], n[1], c.wantVersion, tr.stmts)
		}
	}
}

// TestEnsureEmbedderRegisteredCost: EnsureEmbedder of an embedder already
// registered (every engine open after the first) reads its row with one
// statement and takes no lock. Before, it ran a transaction holding the
// embedder's advisory lock: four statements.
func TestEnsureEmbedderRegisteredCost(t *testing.T) {
	ctx := t.Context()
	tr := &tracer{}
	pool, err := pgstore.OpenTraced(ctx, pgtest.DSN(t), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	first, err := pgstore.EnsureEmbedder(ctx, pool, "e8", 8)
	if err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	tr.stmts = nil
	tr.mu.Unlock()
	again, err := pgstore.EnsureEmbedder(ctx, pool, "e8", 8)
	if err != nil || again != first {
		t.Fatalf("EnsureEmbedder again = %+v, %v; want %+v", again, err, first)
	}
	if _, n := tr.counts("", "pg_advisory_xact_lock"); n[0] != 1 || n[1] != 0 {
		t.Errorf("EnsureEmbedder of a registered embedder sent %d statements (%d locks), want 1 (0): %q", n[0], n[1], tr.stmts)
	}
}
