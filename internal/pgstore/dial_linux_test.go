//go:build linux

package pgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/sys/unix"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestTCPUserTimeout: every connection of Open's pool and of OpenDB's
// *sql.DB has TCP_USER_TIMEOUT set on its socket (read back with
// getsockopt), DefaultTCPUserTimeout unless the DSN's tcp_user_timeout
// (milliseconds, as libpq's) says otherwise, 0 leaving the system's
// default; the parameter is not sent to the server, whose own socket's
// setting stays its default. Before, pgx's dialer set nothing (0: a
// statement unacknowledged on a lost path waited about 15 minutes) and
// sent tcp_user_timeout to the server.
func TestTCPUserTimeout(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, c := range []struct {
		name, param string
		want        int // milliseconds
	}{
		{"Default", "", int(pgstore.DefaultTCPUserTimeout.Milliseconds())},
		{"FromDSN", "&tcp_user_timeout=2500", 2500},
		{"Zero", "&tcp_user_timeout=0", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pool, err := pgstore.Open(t.Context(), dsn+c.param)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			pc, err := pool.Acquire(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Release()
			if got := userTimeoutOf(t, pc.Conn()); got != c.want {
				t.Errorf("pool connection: TCP_USER_TIMEOUT = %d ms, want %d", got, c.want)
			}
			var server string
			if err := pc.QueryRow(t.Context(), `SHOW tcp_user_timeout`).Scan(&server); err != nil {
				t.Fatal(err)
			}
			if server != "0" {
				t.Errorf("the server's tcp_user_timeout = %s, want 0 (the DSN's parameter is the client's)", server)
			}

			db, err := pgstore.OpenDB(t.Context(), dsn+c.param)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := userTimeoutOfDB(t, db); got != c.want {
				t.Errorf("*sql.DB connection: TCP_USER_TIMEOUT = %d ms, want %d", got, c.want)
			}
		})
	}
}

// TestTCPUserTimeoutInvalid: a tcp_user_timeout that is not a whole
// number of milliseconds from 0 is refused before any connection, with
// ErrInvalid naming the parameter. No server needed.
func TestTCPUserTimeoutInvalid(t *testing.T) {
	for _, v := range []string{"abc", "-1", "1.5", "60s"} {
		_, err := pgstore.Open(t.Context(), "postgres://u@127.0.0.1:1/db?tcp_user_timeout="+v)
		if !errors.Is(err, pgstore.ErrInvalid) || !strings.Contains(err.Error(), "tcp_user_timeout") {
			t.Errorf("Open with tcp_user_timeout=%s: %v, want ErrInvalid naming tcp_user_timeout", v, err)
		}
	}
}

// userTimeoutOf reads TCP_USER_TIMEOUT (milliseconds) from c's socket.
func userTimeoutOf(t *testing.T, c *pgx.Conn) int {
	t.Helper()
	nc := c.PgConn().Conn()
	if tc, ok := nc.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		t.Fatalf("connection %T has no socket", nc)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := rc.Control(func(fd uintptr) {
		v, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	}); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatalf("getsockopt TCP_USER_TIMEOUT: %v", gerr)
	}
	return v
}

// userTimeoutOfDB is userTimeoutOf on a connection of db.
func userTimeoutOfDB(t *testing.T, db *sql.DB) int {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var v int
	if err := conn.Raw(func(dc any) error {
		v = userTimeoutOf(t, dc.(*stdlib.Conn).Conn())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return v
}
