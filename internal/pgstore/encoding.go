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
		return fmt.Errorf("%w: it is %s; mnemo stores text as UTF-8 (%s)", ErrEncoding, quoteStatus(server), createUTF8Hint)
	}
	if client := c.PgConn().ParameterStatus("client_encoding"); !isUTF8(client) {
		return fmt.Errorf("%w: the connection's client_encoding is %s, not the UTF8 mnemo asked for",
			ErrEncoding, quoteStatus(client))
	}
	return nil
}

// createUTF8Hint says how to create a database ErrEncoding does not
// refuse. ENCODING 'UTF8' alone is not enough: a new database takes
// LC_COLLATE and LC_CTYPE from its template unless given, and "the
// character set encoding specified for the new database must be
// compatible with the chosen locale settings": on a server whose default
// locale is not UTF-8 (initdb'd under en_US.ISO-8859-1, say) it fails with
// `encoding "UTF8" does not match locale …`. The C locale "allows all
// encodings", and a locale other than template0's needs TEMPLATE
// template0 (PostgreSQL 15, CREATE DATABASE, Notes; LOCALE, since
// PostgreSQL 13, sets LC_COLLATE and LC_CTYPE at once). C costs mnemo
// nothing: it orders text by bytes (COLLATE "C") and tokenizes it in Go.
const createUTF8Hint = "create a UTF8 database and point the DSN at it: " + createUTF8Database + "; " +
	"LOCALE sets LC_COLLATE and LC_CTYPE, which must suit UTF8: 'C' always does, another locale must be a UTF-8 one the server has " +
	"(LOCALE 'en_US.UTF-8'), and ENCODING 'UTF8' alone fails where the server's default locale is not UTF-8"

// createUTF8Database is the statement ErrEncoding's message suggests,
// with <name> for the database's name: it creates a UTF8 database on any
// PostgreSQL 13 or later, whatever the server's default locale.
const createUTF8Database = "CREATE DATABASE <name> ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0"

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
