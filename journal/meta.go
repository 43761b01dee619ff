package journal

import (
	"context"
	"fmt"
)

// Set records output under (scope, key), replacing a record there: for
// settings that change (the data directory's embedder, engine.ScopeMeta),
// unlike Step's records, which are written once. For mnemo's own
// packages: on an engine's journal (engine.Engine.Journal) it replaces
// records the engine relies on (its embedder); never call it there.
// Errors: the database's (ctx's when cancelled).
func (j *Journal) Set(ctx context.Context, scope, key string, output []byte) error {
	_, err := j.conn.ExecContext(ctx, `INSERT INTO journal (scope, key, output, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (scope, key) DO UPDATE SET output = excluded.output, created_at = excluded.created_at`,
		scope, key, output, j.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("journal: record %s/%s: %w", scope, key, err)
	}
	return nil
}
