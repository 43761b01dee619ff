package engine

import (
	"context"
	"fmt"
	"time"
)

// Stats is a snapshot of an engine's size and index lag, for monitoring
// (mnemo serve's /metrics).
type Stats struct {
	// Messages and Threads count what is stored.
	Messages int64 `json:"messages"`
	Threads  int64 `json:"threads"`
	// OutboxPending counts outbox rows not yet applied to the derived
	// indexes (messages to index, erasures to purge).
	OutboxPending int64 `json:"outboxPending"`
	// IndexLag is the age of the oldest pending outbox row; 0 when the
	// indexes are caught up.
	IndexLag time.Duration `json:"indexLagNanos"`
}

// Stats counts messages, threads and pending outbox rows. It reads SQLite
// only (three indexed counts) and is cheap enough for a metrics scrape.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	if err := e.checkOpen(); err != nil {
		return Stats{}, err
	}
	var s Stats
	var oldest *int64
	err := e.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM threads),
		(SELECT COUNT(*) FROM outbox), (SELECT MIN(created_at) FROM outbox)`).Scan(&s.Messages, &s.Threads, &s.OutboxPending, &oldest)
	if err != nil {
		return Stats{}, fmt.Errorf("engine: stats: %w", err)
	}
	if oldest != nil {
		if lag := e.now().Sub(time.UnixMilli(*oldest)); lag > 0 {
			s.IndexLag = lag
		}
	}
	return s, nil
}

// Ping reports whether the engine is open and its database answers: nil,
// ErrClosed after Close, or the database's error. It is cheap enough for a
// health check on every probe (one round trip, no scan).
func (e *Engine) Ping(ctx context.Context) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	if err := e.db.PingContext(ctx); err != nil {
		return fmt.Errorf("engine: ping: %w", err)
	}
	return nil
}
