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
// first schema (firstSchema) is not where unqualified names go
// (current, the server's current_schema(); "" for none): the schema does
// not exist, and Postgres would otherwise create mnemo's tables in the next
// schema of the path that does (public, in docs/postgres.md's example).
func checkFirstSchema(c *pgx.Conn, current string) error {
	want := firstSchema(c)
	if want == "" || want == current {
		return nil
	}
	if current == "" {
		current = "no schema"
	}
	return fmt.Errorf("%w: %q (create it, CREATE SCHEMA %s, or fix search_path; mnemo's tables would have gone to %s)",
		ErrNoSuchSchema, want, pgx.Identifier{want}.Sanitize(), current)
}

// currentSchema is the server's current_schema() on conn ("" for none).
func currentSchema(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (string, error) {
	var s *string
	if err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&s); err != nil {
		return "", fmt.Errorf("read current_schema: %w", err)
	}
	if s == nil {
		return "", nil
	}
	return *s, nil
}
