package pgstore

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectionLost reports whether err comes from a connection to the server
// that could not be made (refused, unreachable, failed handshake:
// *pgconn.ConnectError) or was lost (closed by the server or the network
// mid-statement: io.ErrUnexpectedEOF, *net.OpError, net.ErrClosed, a
// connection pgx or database/sql found broken) rather than from a
// statement the server answered: an outage, not a bug.
func ConnectionLost(err error) bool {
	var ce *pgconn.ConnectError
	var oe *net.OpError
	return errors.As(err, &ce) || errors.As(err, &oe) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, driver.ErrBadConn)
}
