package pgstore_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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

// TestSearchPathSchemaMissing: a search_path whose first schema does not
// exist is refused with ErrNoSuchSchema naming it, and nothing is created
// (before: Postgres created mnemo's tables in the next schema of the path
// that exists, public in docs/postgres.md's example, and the memory silently
// lived there). The default search_path ("$user", public) is not checked.
func TestSearchPathSchemaMissing(t *testing.T) {
	next := schemaOf(t, pgtest.DSN(t)) // exists; stands in for public, which the test must not write
	missing := "nope_" + next
	path := pgtest.WithSearchPath(t, pgtest.ServerDSN(t), missing+","+next+",public")
	for _, open := range []func() error{
		func() error { p, err := pgstore.Open(t.Context(), path); closeIf(p); return err },
		func() error { p, err := pgstore.OpenExisting(t.Context(), path); closeIf(p); return err },
	} {
		if err := open(); !errors.Is(err, pgstore.ErrNoSuchSchema) || !strings.Contains(err.Error(), missing) {
			t.Fatalf("open with the search_path's first schema missing: %v, want ErrNoSuchSchema naming %s", err, missing)
		}
	}
	conn, err := pgx.Connect(t.Context(), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var created bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regclass(quote_ident($1) || '.schema_version') IS NOT NULL`, next).Scan(&created); err != nil {
		t.Fatal(err)
	}
	if created {
		t.Fatalf("the refused opens created mnemo's tables in %s, the next schema of the path", next)
	}
}

// closeIf closes p when the open returned one.
func closeIf(p *pgxpool.Pool) {
	if p != nil {
		p.Close()
	}
}

// TestSearchPathWithoutVector: a search_path that leaves out the schema
// pgvector is installed in (search_path=walk31, vector in public) is
// refused with ErrVectorNotOnPath naming that schema and the search_path
// to give, and nothing is created; it failed with Postgres's `migrate to
// 2: ERROR: type "vector" does not exist (SQLSTATE 42704)`.
func TestSearchPathWithoutVector(t *testing.T) {
	own := schemaOf(t, pgtest.DSN(t)) // exists, empty
	conn, err := pgx.Connect(t.Context(), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var ext string
	if err := conn.QueryRow(t.Context(), `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`).Scan(&ext); err != nil {
		t.Skipf("no vector extension installed in the test database: %v", err)
	}
	if ext == own {
		t.Skipf("vector is installed in the test's own schema %s", own)
	}
	path := pgtest.WithSearchPath(t, pgtest.ServerDSN(t), own)
	p, err := pgstore.Open(t.Context(), path)
	closeIf(p)
	if want := "search_path=" + own + "," + ext; !errors.Is(err, pgstore.ErrVectorNotOnPath) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"`+ext+`"`) {
		t.Fatalf("Open with search_path %s: %v, want ErrVectorNotOnPath naming schema %s and %s", own, err, ext, want)
	}
	var created bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regclass(quote_ident($1) || '.schema_version') IS NOT NULL`, own).Scan(&created); err != nil {
		t.Fatal(err)
	}
	if created {
		t.Fatalf("the refused open created mnemo's tables in %s", own)
	}
}

// TestSearchPathNoSchemaExists: a search_path of which no schema exists
// ("$user" alone where the role has no schema of its name, or "$user"
// then a missing one) is refused by Open and OpenExisting with
// ErrNoSuchSchema, saying which schema "$user" stands for and what to give
// instead; Open failed with Postgres's own words, `no schema has been
// selected to create in (SQLSTATE 3F000)`, and OpenExisting said there
// were no mnemo tables.
func TestSearchPathNoSchemaExists(t *testing.T) {
	conn, err := pgx.Connect(t.Context(), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var user string
	var userSchema bool
	if err := conn.QueryRow(t.Context(), `SELECT current_user, EXISTS (SELECT FROM pg_namespace WHERE nspname = current_user)`).Scan(&user, &userSchema); err != nil {
		t.Fatal(err)
	}
	if userSchema {
		t.Skipf("the test role %s has a schema of its name: \"$user\" resolves", user)
	}
	missing := "nope_" + schemaOf(t, pgtest.DSN(t))
	for _, c := range []struct{ name, path string }{
		{"UserAlone", "$user"},
		{"UserQuoted", `"$user"`},
		{"UserThenMissing", "$user," + missing},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := pgtest.WithSearchPath(t, pgtest.ServerDSN(t), c.path)
			for _, open := range []struct {
				name string
				f    func() error
			}{
				{"Open", func() error { p, err := pgstore.Open(t.Context(), path); closeIf(p); return err }},
				{"OpenExisting", func() error { p, err := pgstore.OpenExisting(t.Context(), path); closeIf(p); return err }},
			} {
				err := open.f()
				for _, want := range []string{"search_path=" + c.path + " exists", `"$user" stands for the role's own schema, "` + user + `"`, "CREATE SCHEMA", "search_path=public"} {
					if !errors.Is(err, pgstore.ErrNoSuchSchema) || !strings.Contains(err.Error(), want) {
						t.Fatalf("%s with search_path %s: %v, want ErrNoSuchSchema saying %s", open.name, c.path, err, want)
					}
				}
			}
		})
	}
}
