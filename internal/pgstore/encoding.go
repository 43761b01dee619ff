package pgstore

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// checkEncoding returns ErrEncoding, naming the encoding, when c's
// database does not store text as UTF-8 (server_encoding SQL_ASCII,
// LATIN1…) or the connection does not exchange it as UTF-8
// (client_encoding, which parse sets to UTF8). Both are parameters the
// server reports when the connection starts, so the check costs no
// statement and runs before anything is read or written.
func checkEncoding(c *pgx.Conn) error {
	server := c.PgConn().ParameterStatus("server_encoding")
	if !isUTF8(server) {
		return fmt.Errorf("%w: it is %s; mnemo stores text as UTF-8 "+
			"(create a UTF8 database, CREATE DATABASE <name> ENCODING 'UTF8' TEMPLATE template0, and point the DSN at it)",
			ErrEncoding, quoteStatus(server))
	}
	if client := c.PgConn().ParameterStatus("client_encoding"); !isUTF8(client) {
		return fmt.Errorf("%w: the connection's client_encoding is %s, not the UTF8 mnemo asked for",
			ErrEncoding, quoteStatus(client))
	}
	return nil
}

// isUTF8 reports whether a server_encoding or client_encoding value names
// UTF-8 (Postgres reports "UTF8"; "UTF-8" and "unicode" are its aliases).
func isUTF8(enc string) bool {
	switch strings.ToUpper(enc) {
	case "UTF8", "UTF-8", "UNICODE":
		return true
	}
	return false
}

// quoteStatus is a reported parameter for a message: as it is, or
// "unreported" when the server did not report it.
func quoteStatus(v string) string {
	if v == "" {
		return "unreported"
	}
	return v
}
