package pgstore

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectionLost reports whether err comes from a connection to the server
// that could not be made (refused, unreachable, failed handshake:
// *pgconn.ConnectError) or was lost (closed by the server or the network
// mid-statement: io.ErrUnexpectedEOF, *net.OpError, net.ErrClosed, a
// connection pgx or database/sql found broken; or ended by the server
// going down: SQLSTATE class 08, connection exception, and 57P01-57P03,
// admin shutdown, crash shutdown and cannot connect now, which a restart,
// a failover or pg_terminate_backend send) rather than from a
// statement the server answered: an outage, not a bug.
func ConnectionLost(err error) bool {
	var ce *pgconn.ConnectError
	var oe *net.OpError
	return errors.As(err, &ce) || errors.As(err, &oe) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, driver.ErrBadConn) ||
		serverGone(err)
}

// serverGone reports whether err is the server's word that the connection
// is over: SQLSTATE class 08 or 57P01-57P03. Not 57014 (a statement
// cancelled) nor 57P04 (the database dropped: no retry helps).
func serverGone(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "57P01", "57P02", "57P03":
		return true
	}
	return strings.HasPrefix(pe.Code, "08")
}
