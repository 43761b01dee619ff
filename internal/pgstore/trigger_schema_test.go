package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestTriggersWriteTheirOwnSchema: the trigger functions of a schema
// (journal_tool_obs_link and recalled_obs_ids, message_calls_apply,
// lexical_apply) write that schema's tables whatever the search_path of
// the session that writes its journal, messages or lexical_docs:
// another deployment's schema first, or no mnemo schema at all (psql's
// default path on a database whose mnemo lives in its own schema).
// Before migration 16 they resolved their tables by the session's path:
// the first session wrote the other schema's message_calls and
// statistics and failed on its journal_tool_obs (a foreign key to the
// other journal), the second failed (no such table).
func TestTriggersWriteTheirOwnSchema(t *testing.T) {
	ctx := t.Context()
	here, there := pgtest.DSN(t), pgtest.DSN(t)
	pool, other := mustOpen(t, here), mustOpen(t, there)
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	s := pgx.Identifier{schema}.Sanitize()
	for i, path := range []string{"", "pg_catalog"} {
		dsn := there
		if path != "" {
			dsn = pgtest.WithSearchPath(t, there, path)
		}
		th, m := fmt.Sprintf("t%d", i), fmt.Sprintf("m%d", i)
		pgtest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO %[1]s.journal (scope, key, resource_id, output, created_at)
			VALUES ('tool', $1, 'r', '{"observations":[{"id":"OBS"}]}'::bytea, 0)`, s), "k"+th)
		pgtest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO %[1]s.threads (id, resource_id, created_at, updated_at, message_count) VALUES ($1, 'r', 0, 0, 1)`, s), th)
		pgtest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO %[1]s.messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest)
			VALUES ($1, $2, 'r', 1, 'assistant', '', '[{"id":"call","name":"f","arguments":"{}"}]', '', 0, 1, '')`, s), m, th)
		pgtest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO %[1]s.lexical_docs (message_id, resource_id, created_at, terms) VALUES ($1, 'r', 0, '{a,b}')`, s), m)
	}
	for _, c := range []struct {
		pool interface {
			QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		}
		want string
	}{{pool, "2 2 2 4"}, {other, "0 0 0 0"}} {
		var got string
		if err := c.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM journal_tool_obs) || ' ' || (SELECT count(*) FROM message_calls) || ' ' ||
			coalesce((SELECT sum(docs) FROM lexical_stats), 0) || ' ' || coalesce((SELECT sum(total_len) FROM lexical_stats), 0)`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("links, calls, documents and terms: %s, want %s", got, c.want)
		}
	}
}
