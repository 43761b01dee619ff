package store

import (
	"context"
	"database/sql"
	"reflect"
	"strconv"
	"strings"
)

// Dialect is the SQL dialect of the database behind a *sql.DB: mnemo runs
// the same owners (journal, working, observe, internal/msgstore) on SQLite
// (modernc.org/sqlite, this package's Open) and on Postgres (pgx's
// database/sql driver, internal/pgstore's OpenDB). The owners write their
// statements once, in SQLite's text with ? placeholders; Rebind gives
// Postgres's placeholders, and the few statements whose words differ
// (INSERT OR IGNORE, INSERT OR REPLACE, blob literals) carry both texts and
// pick one with Text.
//
// The zero value is SQLite.
type Dialect uint8

// The dialects.
const (
	SQLite   Dialect = iota // ? and ?NNN placeholders; the text is used as written
	Postgres                // $n placeholders
)

// pgxDriverPkg is the package of pgx's database/sql driver (*stdlib.Driver).
// DialectOf compares package paths so that this package does not link pgx
// into every binary that only uses SQLite.
const pgxDriverPkg = "github.com/jackc/pgx/v5/stdlib"

// String names the dialect: "sqlite" or "postgres".
func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// DialectOf returns the dialect of db's driver: Postgres for pgx's
// database/sql driver (github.com/jackc/pgx/v5/stdlib), SQLite for any
// other.
func DialectOf(db *sql.DB) Dialect {
	t := reflect.TypeOf(db.Driver())
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == pgxDriverPkg {
		return Postgres
	}
	return SQLite
}

// Text returns sqlite in the SQLite dialect and postgres in Postgres, for
// a statement whose words differ between them (postgres is written with
// $n placeholders; Rebind leaves it unchanged).
func (d Dialect) Text(sqlite, postgres string) string {
	if d == Postgres {
		return postgres
	}
	return sqlite
}

// Rebind returns q in d's placeholders. In SQLite it returns q itself, so
// the SQLite path runs the exact text written. In Postgres it numbers the
// placeholders as SQLite does: ?NNN becomes $NNN, and a bare ? becomes
// $(one more than the highest number so far), so a statement binds the same
// arguments on both backends. Question marks in string literals, quoted
// identifiers and comments are left alone.
func (d Dialect) Rebind(q string) string {
	if d != Postgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	highest := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			end := closing(q, i+1, c)
			b.WriteString(q[i:end])
			i = end - 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end - 1
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q) - i - 4
			}
			b.WriteString(q[i : i+end+4])
			i += end + 3
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			highest = max(highest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// closing returns the index after the quote that closes the literal opened
// before from (a doubled quote is an escaped one), or len(q).
func closing(q string, from int, quote byte) int {
	for i := from; i < len(q); i++ {
		if q[i] != quote {
			continue
		}
		if i+1 < len(q) && q[i+1] == quote {
			i++
			continue
		}
		return i + 1
	}
	return len(q)
}

// Conn is what an owner's function runs statements on: a *sql.DB, a
// *sql.Tx, or a *Tx (a transaction that knows its dialect).
type Conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx is a transaction with its database's dialect, so that the owners'
// functions that take the caller's transaction know which SQL to speak.
// Begin returns one.
type Tx struct {
	*sql.Tx
	Dialect Dialect
}

// Begin starts a transaction on db (opts as sql.DB.BeginTx) carrying db's
// dialect (DialectOf). A write transaction (opts nil or not ReadOnly) on
// a database with a WriteCheck (Postgres: the schema version) runs the
// check first: its error is returned as it is, the transaction rolled
// back.
func Begin(ctx context.Context, db *sql.DB, opts *sql.TxOptions) (*Tx, error) {
	stx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	tx := &Tx{Tx: stx, Dialect: DialectOf(db)}
	if check := writeCheck(db); check != nil && (opts == nil || !opts.ReadOnly) {
		if err := check(ctx, tx); err != nil {
			stx.Rollback()
			return nil, err
		}
	}
	return tx, nil
}

// DialectOfConn returns c's dialect: a *Tx's own, a *sql.DB's driver's
// (DialectOf), and SQLite for any other (a bare *sql.Tx, whose driver
// database/sql does not expose: callers on Postgres begin their
// transactions with Begin).
func DialectOfConn(c Conn) Dialect {
	switch c := c.(type) {
	case *Tx:
		return c.Dialect
	case rebound:
		return c.d
	case *sql.DB:
		return DialectOf(c)
	}
	return SQLite
}

// Bound returns c with every statement rebound to c's dialect
// (DialectOfConn, Rebind) before it runs: c itself in SQLite, so the
// SQLite path runs the exact text written at no cost, and on Postgres a
// Conn that rewrites the placeholders of each statement (one scan of its
// text and one allocation: about 0.5 µs for a 150-byte statement,
// BenchmarkRebind, against a round trip to the server). Statements run
// often belong in Stmts, which rebinds once.
func Bound(c Conn) Conn {
	if d := DialectOfConn(c); d != SQLite {
		return rebound{c, d}
	}
	return c
}

// rebound is a Conn that rebinds each statement to d.
type rebound struct {
	c Conn
	d Dialect
}

// ExecContext runs query on r's Conn; on a *sql.DB with a WriteCheck,
// in a transaction of its own after the check (execChecked).
func (r rebound) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q := r.d.Rebind(query)
	db, ok := r.c.(*sql.DB)
	if !ok {
		return r.c.ExecContext(ctx, q, args...)
	}
	return execChecked(ctx, db, func() (sql.Result, error) { return db.ExecContext(ctx, q, args...) },
		func(tx *Tx) (sql.Result, error) { return tx.ExecContext(ctx, q, args...) })
}

func (r rebound) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.c.QueryContext(ctx, r.d.Rebind(query), args...)
}

func (r rebound) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.c.QueryRowContext(ctx, r.d.Rebind(query), args...)
}
