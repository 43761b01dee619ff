package pgstore_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestSchemaOfSearchPath: the schema version is read from the search
// path's own schema (current_schema(): where the tables are created), not
// from whichever schema of the path holds a schema_version table. With
// search_path "new,old,public" where old holds mnemo's tables and new is
// empty, Open creates the tables in new (before: old's version was taken
// as new's, nothing was created, and every statement used old's tables),
// and OpenExisting refuses new with ErrNoSchema.
func TestSchemaOfSearchPath(t *testing.T) {
	oldDSN := pgtest.DSN(t) // "old,public", migrated by the Open below
	mustOpen(t, oldDSN)
	newDSN := pgtest.DSN(t) // "new,public", empty
	old, fresh := schemaOf(t, oldDSN), schemaOf(t, newDSN)
	path := pgtest.WithSearchPath(t, pgtest.ServerDSN(t), fresh+","+old+",public")

	if _, err := pgstore.OpenExisting(t.Context(), path); !errors.Is(err, pgstore.ErrNoSchema) {
		t.Fatalf("OpenExisting on an empty schema before one that holds mnemo's tables: %v, want ErrNoSchema", err)
	}
	pool := mustOpen(t, path)
	var where string
	if err := pool.QueryRow(t.Context(), `SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = 'messages'::regclass`).Scan(&where); err != nil {
		t.Fatal(err)
	}
	if where != fresh {
		t.Fatalf("messages resolves to schema %s, want the search path's first, %s", where, fresh)
	}
}

// schemaOf is the first schema of dsn's search_path.
func schemaOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(u.Query().Get("search_path"), ",")
	return first
}
