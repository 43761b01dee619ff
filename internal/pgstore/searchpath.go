package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// firstSchema is the schema the connection's search_path parameter names
// first, as Postgres reads it (an unquoted name folded to lower case, a
// quoted one as written), or "" when the DSN sets no search_path or it
// starts with "$user" (Postgres's default, where falling through to
// public is meant).
func firstSchema(c *pgx.Conn) string {
	path := strings.TrimSpace(c.Config().RuntimeParams["search_path"])
	if !strings.HasPrefix(path, `"`) {
		first, _, _ := strings.Cut(path, ",")
		first = strings.ToLower(strings.TrimSpace(first))
		if first == "$user" {
			return ""
		}
		return first
	}
	var b strings.Builder
	for i := 1; i < len(path); i++ {
		if path[i] == '"' {
			if i+1 < len(path) && path[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			break
		}
		b.WriteByte(path[i])
	}
	if b.String() == "$user" {
		return ""
	}
	return b.String()
}

// checkFirstSchema returns ErrNoSuchSchema, naming it, when the search_path's
// first schema (firstSchema) is not where unqualified names go (at.schema,
// the server's current_schema(); "" for none): the schema does not exist,
// and Postgres would otherwise create mnemo's tables in the next schema of
// the path that does (public, in docs/postgres.md's example). A path that
// starts with "$user", or the server's default, is not checked unless no
// schema of it exists (noSchemaOnPath): then Postgres refused every CREATE
// in its own words, "no schema has been selected to create in".
func checkFirstSchema(c *pgx.Conn, at pathState) error {
	want, current := firstSchema(c), at.schema
	if want == "" && current == "" {
		return noSchemaOnPath(at)
	}
	if want == "" || want == current {
		return nil
	}
	if current == "" {
		current = "no schema"
	}
	return fmt.Errorf("%w: %q (create it, CREATE SCHEMA %s, or fix search_path; mnemo's tables would have gone to %s)",
		ErrNoSuchSchema, want, pgx.Identifier{want}.Sanitize(), current)
}

// noSchemaOnPath is ErrNoSuchSchema for a search_path (at.path) that starts
// with "$user" (or is the server's default) and of which no schema
// exists: "$user" stands for the role's own schema (at.user), which the
// error names with the statement that creates it and the DSN parameter
// that names another.
func noSchemaOnPath(at pathState) error {
	return fmt.Errorf(`%w: no schema of search_path=%s exists, and "$user" stands for the role's own schema, %q, which does not `+
		`(create it, CREATE SCHEMA %s, or name a schema that exists in the DSN: search_path=public for Postgres's usual one)`,
		ErrNoSuchSchema, at.path, at.user, pgx.Identifier{at.user}.Sanitize())
}

// pathState is where the connection's unqualified names go: schema, the
// server's current_schema() ("" for none: no schema of the path exists);
// user, current_user (what "$user" stands for); path, the search_path
// setting as the server holds it.
type pathState struct{ schema, user, path string }

// currentSchema reads conn's pathState.
func currentSchema(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (pathState, error) {
	var s *string
	var at pathState
	if err := q.QueryRow(ctx, `SELECT current_schema(), current_user, current_setting('search_path')`).Scan(&s, &at.user, &at.path); err != nil {
		return at, fmt.Errorf("read current_schema: %w", err)
	}
	if s != nil {
		at.schema = *s
	}
	return at, nil
}
