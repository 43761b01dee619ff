package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

// Stats is a snapshot of an engine's size and index lag, for monitoring
// (mnemo serve's /metrics).
type Stats struct {
	// Messages and Threads count what is stored.
	Messages int64 `json:"messages"`
	// Threads counts the stored threads.
	Threads int64 `json:"threads"`
	// OutboxPending counts outbox rows not yet applied to the derived
	// indexes (messages to index, erasures to purge).
	OutboxPending int64 `json:"outboxPending"`
	// IndexLag is the age of the oldest pending outbox row; 0 when the
	// indexes are caught up.
	IndexLag time.Duration `json:"indexLagNanos"`
	// ObserveBackoffs counts the threads' observer and reflector calls
	// backing off after failures in a row (observe.Observer.Backoffs;
	// engine.Engine.Observe's Result.Backoffs says a thread's, with the
	// retry-after); 0 when observation is off or none waits.
	ObserveBackoffs int `json:"observeBackoffs"`
	// ObserveRefused, when the model endpoint refused the key, quota or
	// model (observe.ErrModelRefused), or the content of every prompt, a
	// harmless probe's too (observe.ErrAllContentRefused), says until when
	// every observer and reflector call waits (Until) and why (Err); nil
	// otherwise.
	ObserveRefused *observe.Backoff `json:"observeRefused,omitempty"`
}

// Stats counts messages, threads and pending outbox rows, and the
// observer's back-offs. It reads the database only (three indexed
// counts, no derived index) and is cheap enough for a metrics scrape. Errors: ErrClosed, ErrNilContext, or the
// database's.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	if err := e.checkOpen(ctx); err != nil {
		return Stats{}, err
	}
	c, err := e.ms.Counts(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("engine: stats: %w", err)
	}
	s := Stats{Messages: c.Messages, Threads: c.Threads, OutboxPending: c.OutboxPending}
	s.ObserveBackoffs, s.ObserveRefused = e.observeBackoffs()
	if !c.OldestOutbox.IsZero() {
		if lag := e.now().Sub(c.OldestOutbox); lag > 0 {
			s.IndexLag = lag
		}
	}
	return s, nil
}

// Ping reports whether the engine is open and its database answers: nil,
// ErrClosed after Close, ErrDatabaseCorrupt once SQLite has reported a
// damaged page of mnemo.db to any of the engine's reads or writes since
// Open, until Close (the flag is the engine's, not the file's: a file
// restored or salvaged is read sound by the next Open, however many reads
// missed the page meanwhile), or the database's error. It is cheap enough
// for a health check on every probe (one round trip, no scan). A lexical
// index quarantined and rebuilding is not an error: recall answers
// meanwhile, and memctx.retrieval says it is degraded. On Postgres it
// also reads the schema version every write checks (one more round trip):
// ErrSchemaMigrated once a newer build migrated the schema, when this
// engine refuses every write.
func (e *Engine) Ping(ctx context.Context) error {
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	if err := e.damagedFile(); err != nil {
		return err
	}
	if err := e.unlinkedDatabase(); err != nil {
		return err
	}
	if err := e.ms.Ping(ctx); err != nil {
		return fmt.Errorf("engine: ping: %w", err)
	}
	return nil
}

// damagedFile returns ErrDatabaseReplaced once mnemo.db was replaced
// under the engine (replacedFile), else ErrDatabaseCorrupt, naming the file, once SQLite has
// reported a damaged page of mnemo.db to any of the engine's reads or
// writes since Open, or while a record of such damage is beside the file
// (mnemo.db.damage-seen: store.DamageMarked, read again at most every
// store.DamageMarkRecheck), or once a check of this engine found it
// damaged and could not write that record (store.NoteDamage); nil before,
// and on Postgres. Its text names
// what clears it, not a command: the front end says its own (the CLI's
// printCorruptAdvice, the server's DatabaseDamagedDetail).
func (e *Engine) damagedFile() error {
	if e.db == nil {
		return nil
	}
	if err := e.replacedFile(); err != nil { // replaced.go
		return err
	}
	path := filepath.Join(e.dir, DatabaseFile)
	if store.Damaged(e.db) {
		return fmt.Errorf("%w: SQLite reported a damaged page of %s since the engine opened: it stores nothing new until it ends; restore the file from a backup, or salvage it, with every process that uses it stopped",
			ErrDatabaseCorrupt, path)
	}
	m := store.DamageMarked(e.db)
	switch {
	case m == nil:
		return nil
	case m.Path == "": // found by this process's check, not recorded (store.NoteDamage)
		return fmt.Errorf("%w: a check found %s damaged (%s); nothing new is stored until a full check finds the file sound: restore the file from a backup, or salvage it, with every process that uses it stopped",
			ErrDatabaseCorrupt, path, markWhat(m))
	}
	return fmt.Errorf("%w: %s was found damaged (%s), recorded in %s; nothing new is stored until the record is removed: "+
		"a salvage removes it, and so does a full check that finds the file sound (one restored from a backup)",
		ErrDatabaseCorrupt, path, markWhat(m), m.Path)
}

// markWhat says what a record of damage holds: "at <UTC time>: <SQLite's
// error>".
func markWhat(m *store.DamageMark) string {
	if m.Seen.IsZero() {
		return m.Error
	}
	return "at " + m.Seen.UTC().Format(time.RFC3339) + ": " + m.Error
}
