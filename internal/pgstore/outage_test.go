package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestConnectTimeout: a DSN without connect_timeout gets
// DefaultConnectTimeout, one with it keeps its own.
func TestConnectTimeout(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want time.Duration
	}{
		{"postgres://u@127.0.0.1:5432/db", pgstore.DefaultConnectTimeout},
		{"postgres://u@127.0.0.1:5432/db?connect_timeout=3", 3 * time.Second},
		{"host=127.0.0.1 dbname=db connect_timeout=1", time.Second},
	} {
		got, err := pgstore.ConnectTimeoutOf(c.dsn)
		if err != nil || got != c.want {
			t.Errorf("connect timeout of %s = %s, %v; want %s", c.dsn, got, err, c.want)
		}
	}
}

// TestOpenServerHangs: Open on a server that accepts connections and
// never answers (a loopback proxy that forwards nothing) returns once the
// connection's timeout passes, with an outage error that names the
// address and not the password, even on a context that never ends. Before
// DefaultConnectTimeout it waited for ever.
func TestOpenServerHangs(t *testing.T) {
	dsn := pgtest.DSN(t)
	px := pgtest.NewProxy(t, strings.Replace(dsn, "postgres://postgres@", "postgres://postgres:s3cret@", 1))
	px.Hang()
	// connect_timeout=1 keeps the test short; TestConnectTimeout checks
	// that the default applies when the DSN sets none.
	done := make(chan error, 1)
	go func() {
		pool, err := pgstore.Open(context.Background(), px.DSN()+"&connect_timeout=1")
		if err == nil {
			pool.Close()
		}
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Open on a server that does not answer did not return within 20 s")
	}
	t.Logf("Open: %v", err)
	if err == nil || !pgstore.ConnectionLost(err) {
		t.Fatalf("Open on a server that does not answer: %v, want an outage (ConnectionLost)", err)
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1:") {
		t.Fatalf("error %q: want the address, never the password", err)
	}
}

// TestServerSpoke: an idle connection that the server ended (terminated
// as a restart does: FATAL 57P01, then the socket closed) or that was cut
// (the proxy closed it) is told from one the server left alone, without
// reading.
func TestServerSpoke(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(t *testing.T, px *pgtest.Proxy, conn *pgx.Conn)
	}{
		{"Cut", func(t *testing.T, px *pgtest.Proxy, conn *pgx.Conn) { px.Sever() }},
		{"Terminated", func(t *testing.T, px *pgtest.Proxy, conn *pgx.Conn) {
			pgtest.Exec(t, pgtest.ServerDSN(t), "SELECT pg_terminate_backend($1)", conn.PgConn().PID())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			px := pgtest.NewProxy(t, pgtest.DSN(t))
			conn, err := pgx.Connect(t.Context(), px.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if err := conn.Ping(t.Context()); err != nil {
				t.Fatal(err)
			}
			if pgstore.ServerSpoke(conn.PgConn().Conn()) {
				t.Fatal("an idle connection the server left alone reported spoken to")
			}
			c.end(t, px, conn)
			deadline := time.Now().Add(20 * time.Second)
			for !pgstore.ServerSpoke(conn.PgConn().Conn()) { // the bytes cross loopback
				if time.Now().After(deadline) {
					t.Fatal("a connection the server ended still reported silent after 20 s")
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}
