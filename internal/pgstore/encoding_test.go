package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestOpenRefusesNonUTF8Database opens databases whose server_encoding is
// not UTF8 with each of Open, OpenExisting and OpenDB: each returns
// ErrEncoding naming the encoding and how to create a UTF8 database, and
// nothing is created in the database (no mnemo table, no pgvector). On
// SQL_ASCII, mnemo used to fail reading its schema version, or (with
// client_encoding=UTF8 in the DSN) to open and then cut previews inside a
// character; on LATIN1 its migration failed half way.
func TestOpenRefusesNonUTF8Database(t *testing.T) {
	server := pgtest.ServerDSN(t)
	opens := map[string]func(context.Context, string) error{
		"Open":         func(ctx context.Context, dsn string) error { return closePool(pgstore.Open(ctx, dsn)) },
		"OpenExisting": func(ctx context.Context, dsn string) error { return closePool(pgstore.OpenExisting(ctx, dsn)) },
		"OpenDB": func(ctx context.Context, dsn string) error {
			db, err := pgstore.OpenDB(ctx, dsn)
			if err == nil {
				db.Close()
			}
			return err
		},
	}
	for _, enc := range []string{"SQL_ASCII", "LATIN1"} {
		t.Run(enc, func(t *testing.T) {
			db := fmt.Sprintf("d_enc_%s_%d", strings.ToLower(enc), time.Now().UnixNano()%1e9)
			pgtest.Exec(t, server, "CREATE DATABASE "+db+" ENCODING '"+enc+"' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
			t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+db+" WITH (FORCE)") })
			dsn := withDatabase(t, server, db)
			for name, open := range opens {
				err := open(t.Context(), dsn)
				if !errors.Is(err, pgstore.ErrEncoding) {
					t.Fatalf("%s on a %s database: %v, want ErrEncoding", name, enc, err)
				}
				for _, want := range []string{"is " + enc, "ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0", "LC_COLLATE and LC_CTYPE", "/" + db + ":"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %q does not say %q", name, err, want)
					}
				}
			}
			checkHint(t, server, opens["Open"](t.Context(), dsn))
			conn, err := pgx.Connect(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(t.Context())
			if got := catalog(t, conn); len(got) != 0 {
				t.Fatalf("a refused open created %v", got)
			}
			var ext int
			if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_extension WHERE extname = 'vector'`).Scan(&ext); err != nil {
				t.Fatal(err)
			}
			if ext != 0 {
				t.Fatal("a refused open created the vector extension")
			}
		})
	}
}

// checkHint runs the CREATE DATABASE statement that err, an ErrEncoding,
// suggests (its <name> replaced) on the server and opens the database it
// creates: Open accepts it. The statement gives LOCALE 'C' besides
// ENCODING 'UTF8': the suggestion before (ENCODING 'UTF8' TEMPLATE
// template0) failed on a server whose default locale is not UTF-8
// (`encoding "UTF8" does not match locale`), which this server's C.UTF-8
// cannot show; the C locale allows every encoding (PostgreSQL 15, CREATE
// DATABASE, Notes).
func checkHint(t *testing.T, server string, err error) {
	t.Helper()
	m := regexp.MustCompile(`CREATE DATABASE <name> [^;)]*`).FindString(errText(err))
	if m == "" {
		t.Fatalf("%v suggests no CREATE DATABASE statement", err)
	}
	db := fmt.Sprintf("d_enc_hint_%d", time.Now().UnixNano()%1e9)
	pgtest.Exec(t, server, strings.Replace(m, "<name>", db, 1))
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+db+" WITH (FORCE)") })
	if err := closePool(pgstore.Open(t.Context(), withDatabase(t, server, db))); err != nil {
		t.Fatalf("Open of the database %q created: %v", m, err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestOpenForcesClientEncodingUTF8 opens a UTF8 database with a DSN that
// asks for client_encoding LATIN1: the connection exchanges UTF-8 anyway,
// so mnemo's simple-protocol statements run (pgx refuses them on any
// other client_encoding) and text that LATIN1 cannot hold round-trips.
func TestOpenForcesClientEncodingUTF8(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("client_encoding", "LATIN1")
	u.RawQuery = q.Encode()
	pool := mustOpen(t, u.String())
	conn, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if got := conn.Conn().PgConn().ParameterStatus("client_encoding"); got != "UTF8" {
		t.Fatalf("client_encoding=%q, want UTF8", got)
	}
	const text = "Café ☕ 日本語"
	var got string
	if err := conn.QueryRow(t.Context(), `SELECT $1::text`, pgx.QueryExecModeSimpleProtocol, text).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != text {
		t.Fatalf("round trip: %q, want %q", got, text)
	}
}

// closePool closes pool when it is not nil and returns err.
func closePool[P interface{ Close() }](pool P, err error) error {
	if err == nil {
		pool.Close()
	}
	return err
}

// withDatabase is dsn (a URL) naming database db instead.
func withDatabase(t *testing.T, dsn, db string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}
