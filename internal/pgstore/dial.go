package pgstore

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultTCPUserTimeout bounds how long data a connection sent may stay
// unacknowledged before the operating system closes the connection
// (TCP_USER_TIMEOUT, Linux; RFC 5482's user timeout), when the DSN sets
// no tcp_user_timeout.
//
// Without it a statement sent on a connection whose network path was lost
// (a peer that vanished, a failed-over address, a black-holing firewall)
// waited for Linux's retransmissions to give up, about 15 minutes
// (tcp_retries2 = 15), when the call had no deadline: a CLI command, the
// outbox drainer's statements. A call with a deadline returns at it
// whatever this setting (pgx sets the socket's deadline when the context
// ends and closes the connection). Measured through a path that drops
// what the server's side sends (a veth pair between two network
// namespaces): a statement with no deadline failed after 60.6 s with
// this default, 3.4 s with tcp_user_timeout=3000, and was still waiting
// after 100 s with tcp_user_timeout=0 (docs/postgres.md, "When the
// database is unreachable").
//
// 60 s leaves room for about 8 retransmissions (Linux doubles the
// retransmission timeout from at least 200 ms: 0.2 × (2⁸−1) ≈ 51 s), so a
// path that comes back within a minute keeps its connections; calls
// without a deadline then fail within the minute an API request is given
// (server.Config.RequestTimeout's default); and it is shorter than keepalive's
// 150 s (Go's 15 s idle, 15 s apart, 9 probes), which it also tightens: on
// Linux a keepalive probe unanswered past the user timeout ends the
// connection too. A server alive but slow (a long statement, a lock wait)
// acknowledges what it is sent, so this does not bound statements.
const DefaultTCPUserTimeout = 60 * time.Second

// tcpUserTimeoutParam is the DSN parameter that sets the TCP user timeout,
// in milliseconds, as libpq reads it (0: the operating system's default,
// no bound of its own). pgx does not read it: it would send it to the
// server as a setting of the server's socket, so userTimeout takes it out.
const tcpUserTimeoutParam = "tcp_user_timeout"

// userTimeout returns the TCP user timeout cfg's DSN asks for (its
// tcp_user_timeout, removed from the parameters sent to the server), or
// DefaultTCPUserTimeout when it names none. A value that is not a
// whole number of milliseconds from 0 returns ErrInvalid naming the
// parameter.
func userTimeout(cfg *pgconn.Config) (time.Duration, error) {
	v, ok := cfg.RuntimeParams[tcpUserTimeoutParam]
	if !ok {
		return DefaultTCPUserTimeout, nil
	}
	delete(cfg.RuntimeParams, tcpUserTimeoutParam)
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("%w: %s %q: want a whole number of milliseconds, 0 for the system's default", ErrInvalid, tcpUserTimeoutParam, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// dialer returns the DialFunc of every connection of a pool or *sql.DB
// (and of pgx's cancel requests): pgx's own dialer (net.Dialer, Go's
// keepalive defaults, timeout the DSN's connect_timeout) whose TCP
// sockets get the user timeout d before they connect (setUserTimeout;
// on Unix-domain sockets, and where the system has no such option, d is
// not set). d = 0 leaves the system's default.
func dialer(connectTimeout, d time.Duration) pgconn.DialFunc {
	nd := &net.Dialer{Timeout: connectTimeout}
	if d > 0 {
		nd.Control = func(network, _ string, c syscall.RawConn) error {
			if !strings.HasPrefix(network, "tcp") {
				return nil
			}
			return setUserTimeout(c, d)
		}
	}
	return nd.DialContext
}
