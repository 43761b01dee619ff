package msgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Counts is a snapshot of the message tables' sizes.
type Counts struct {
	Messages, Threads int64
	// OutboxPending counts outbox rows; OldestOutbox is the creation time
	// (UTC) of the oldest of them, zero when there is none.
	OutboxPending int64
	OldestOutbox  time.Time
}

// Counts counts messages, threads and outbox rows in one statement (three
// indexed counts), cheap enough for a metrics scrape.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	var oldest *int64
	err := s.conn.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM threads),
		(SELECT COUNT(*) FROM outbox), (SELECT MIN(created_at) FROM outbox)`).Scan(&c.Messages, &c.Threads, &c.OutboxPending, &oldest)
	if err != nil {
		return Counts{}, fmt.Errorf("count messages: %w", err)
	}
	if oldest != nil {
		c.OldestOutbox = unixMilli(*oldest)
	}
	return c, nil
}

// Ping reports whether the database answers (one round trip, no scan) and
// whether a write would pass its write check (store.CheckWrites: nothing
// more on SQLite, one read of schema_version on Postgres, whose
// ErrSchemaMigrated it returns once a newer build migrated the schema).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	return store.CheckWrites(ctx, s.db)
}
