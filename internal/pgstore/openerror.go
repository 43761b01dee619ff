package pgstore

import (
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// openError is a failed open, said once: "open HOST:PORT/DB: " and the
// cause, without pgx's restatement of where ("failed to connect to
// `user=U database=D`: HOST:PORT (IP): ") and without the "pgstore: " or
// "engine: " that begins this package's own errors. It names no package:
// the engine, Open's caller, adds its own ("engine: open HOST:PORT/DB:
// …"), the package a user meets it through. It unwraps to the whole error, so
// errors.Is and errors.As see what they saw before (ErrNoSchema,
// *pgconn.PgError, *net.OpError…).
type openError struct {
	where string // host:port/database, never the password
	err   error
}

func (e *openError) Error() string { return "open " + e.where + ": " + openCause(e.err) }
func (e *openError) Unwrap() error { return e.err }

// openCause words err for openError: a connection to one address that
// failed by its cause alone (the server's words, "FATAL: database \"x\"
// does not exist (SQLSTATE 3D000)", or the dial's, "connect: connection
// refused"), also when it was tried more than once alike (sslmode=prefer,
// the default, tries TLS and then plain text); attempts at several
// addresses in full (each names its address); anything else as it is,
// less a leading "pgstore: ".
func openCause(err error) string {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && oneAttempt(ce.Unwrap().Error()) {
		var pgErr *pgconn.PgError
		var opErr *net.OpError
		switch {
		case errors.As(err, &pgErr):
			return pgErr.Error()
		case errors.As(err, &opErr) && opErr.Err != nil:
			return opErr.Err.Error()
		}
		attempt := ce.Unwrap()
		if j, ok := attempt.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
			attempt = j.Unwrap()[0] // the attempts failed alike: the first says it
		}
		if cause := errors.Unwrap(attempt); cause != nil { // past "HOST:PORT (IP): "
			err = cause
		}
	}
	msg := strings.TrimPrefix(err.Error(), "pgstore: ")
	return strings.TrimPrefix(msg, "engine: ")
}

// oneAttempt reports whether the attempts of a connection error (one a
// line) all failed alike: one address, one cause.
func oneAttempt(attempts string) bool {
	first, rest, _ := strings.Cut(attempts, "\n")
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if line != first {
			return false
		}
	}
	return true
}
