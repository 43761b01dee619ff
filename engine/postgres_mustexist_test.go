package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresMustExist: Config.MustExist (what every reading command of
// the CLI sets) refuses a schema that holds no mnemo tables with
// ErrNotDataDir and creates nothing in it — a mistyped database or
// search_path is an error, not a new, empty memory spread over someone
// else's schema — and opens one that Open has created.
func TestPostgresMustExist(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	_, err := engine.Open(ctx, engine.Config{Postgres: dsn, MustExist: true, Embedder: recall.HashEmbedder{}})
	if !errors.Is(err, engine.ErrNotDataDir) {
		t.Fatalf("MustExist on an empty schema: err = %v, want ErrNotDataDir", err)
	}
	if n := countTables(t, dsn); n != 0 {
		t.Fatalf("MustExist on an empty schema created %d tables", n)
	}
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = engine.Open(ctx, engine.Config{Postgres: dsn, MustExist: true, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("MustExist on a created schema: %v", err)
	}
	_ = e.Close()
}

// countTables counts the tables of the first schema of dsn's search_path.
func countTables(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresRefusesNonUTF8: Open (with or without MustExist) on a
// database created with ENCODING 'SQL_ASCII' returns ErrDatabaseEncoding
// naming the encoding and creates no table. Before, it failed reading the
// schema version ("simple protocol queries must be run with
// client_encoding=UTF8"), or, with client_encoding=UTF8 in the DSN,
// opened and then failed search previews cut inside a character.
func TestPostgresRefusesNonUTF8(t *testing.T) {
	server := pgtest.ServerDSN(t)
	db := fmt.Sprintf("d_engine_ascii_%d", time.Now().UnixNano()%1e9)
	pgtest.Exec(t, server, "CREATE DATABASE "+db+" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+db+" WITH (FORCE)") })
	u, err := url.Parse(server)
	if err != nil {
		t.Skipf("MNEMO_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + db
	q := u.Query()
	q.Set("client_encoding", "UTF8") // the workaround that used to open it
	u.RawQuery = q.Encode()
	for _, mustExist := range []bool{false, true} {
		_, err := engine.Open(context.Background(), engine.Config{Postgres: u.String(), MustExist: mustExist, Embedder: recall.HashEmbedder{}})
		if !errors.Is(err, engine.ErrDatabaseEncoding) {
			t.Fatalf("MustExist=%v: err = %v, want ErrDatabaseEncoding", mustExist, err)
		}
		if !strings.Contains(err.Error(), "SQL_ASCII") {
			t.Errorf("%q does not name the encoding", err)
		}
	}
	if n := countTables(t, u.String()); n != 0 {
		t.Fatalf("a refused open created %d tables", n)
	}
}
