package server_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
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
	px := newPGProxy(t, dsn)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.dsn})
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
	px.hang()
	start := time.Now()
	if code := healthCode(t, srv); code != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the database hanging: %d, want 503", code)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("healthz with the database hanging took %s", d)
	}
	px.close()
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

// pgProxy forwards loopback connections to the Postgres server of a DSN
// until hang (connections stay open, nothing is forwarded) or close (the
// listener and every connection are closed).
type pgProxy struct {
	ln    net.Listener
	dsn   string
	mu    sync.Mutex
	hung  bool
	conns []net.Conn
}

func newPGProxy(t *testing.T, dsn string) *pgProxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Skipf("the proxy needs a URL DSN: %v", err)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.Host = ln.Addr().String()
	p := &pgProxy{ln: ln, dsn: u.String()}
	t.Cleanup(p.close)
	go p.serve(target)
	return p
}

func (p *pgProxy) serve(target string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		hung := p.hung
		p.mu.Unlock()
		if hung {
			continue
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, s)
		p.mu.Unlock()
		go p.pipe(s, c)
		go p.pipe(c, s)
	}
}

// pipe copies from src to dst until hang, then discards what src sends.
func (p *pgProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		hung := p.hung
		p.mu.Unlock()
		if hung {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (p *pgProxy) hang() {
	p.mu.Lock()
	p.hung = true
	p.mu.Unlock()
}

func (p *pgProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// TestAPIDatabaseDown: an API route answers a database outage (the server
// refusing connections, pooled connections closed) with 503 and
// Retry-After, which a load balancer tells from a bug's 500.
func TestAPIDatabaseDown(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := newPGProxy(t, dsn)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.dsn})
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
	px.close()
	// The first request finds its pooled connection closed; the second
	// one's new connection is refused.
	for i := range 2 {
		rec := get()
		if rec.code != http.StatusServiceUnavailable || rec.hdr.Get("Retry-After") == "" {
			t.Fatalf("GET /v1/threads/t1 #%d with the database down: %d, Retry-After %q; want 503 with Retry-After", i, rec.code, rec.hdr.Get("Retry-After"))
		}
	}
}
