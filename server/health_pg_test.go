package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/server"
)

// TestHealthDatabaseDown: /healthz over an engine on Postgres answers 503
// (the OpenAPI document's only error for it), not 500, when the database
// stops answering, and answers within the health check's bound even when
// the server hangs (a partition: connections open, no reply) rather than
// as long as the caller waits. The database sits behind a loopback proxy
// the test cuts.
func TestHealthDatabaseDown(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := pgtest.NewProxy(t, dsn)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	srv, err := server.New(server.Config{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	if code := healthCode(t, srv); code != http.StatusOK {
		t.Fatalf("healthz with the database up: %d", code)
	}
	px.Hang()
	start := time.Now()
	if code := healthCode(t, srv); code != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the database hanging: %d, want 503", code)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("healthz with the database hanging took %s", d)
	}
	px.Close()
	if code := healthCode(t, srv); code != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the database refusing connections: %d, want 503", code)
	}
}

// healthCode sends GET /healthz to srv (the caller waits up to a minute).
func healthCode(t *testing.T, srv *server.Server) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "/healthz", nil)
	rec := newRecorder()
	srv.Handler().ServeHTTP(rec, req)
	return rec.code
}

// recorder is a minimal http.ResponseWriter keeping the status.
type recorder struct {
	hdr  http.Header
	code int
}

func newRecorder() *recorder                    { return &recorder{hdr: http.Header{}, code: 200} }
func (r *recorder) Header() http.Header         { return r.hdr }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(c int)           { r.code = c }

// TestAPIDatabaseDown: an API route answers a database outage (the server
// refusing connections, pooled connections closed) with 503 and
// Retry-After, which a load balancer tells from a bug's 500.
func TestAPIDatabaseDown(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := pgtest.NewProxy(t, dsn)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	srv, err := server.New(server.Config{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	get := func() *recorder {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "/v1/threads/t1", nil)
		rec := newRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := get(); rec.code != http.StatusNotFound {
		t.Fatalf("GET /v1/threads/t1 with the database up: %d, want 404", rec.code)
	}
	px.Close()
	// The first request finds its pooled connection closed; the second
	// one's new connection is refused.
	for i := range 2 {
		rec := get()
		if rec.code != http.StatusServiceUnavailable || rec.hdr.Get("Retry-After") == "" {
			t.Fatalf("GET /v1/threads/t1 #%d with the database down: %d, Retry-After %q; want 503 with Retry-After", i, rec.code, rec.hdr.Get("Retry-After"))
		}
	}
}
