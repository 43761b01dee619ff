package working

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// GetVersion returns version n of key as its history holds it now: the
// content written under that number (rebuilt, when an erasure rewrote the
// version it survived), with its time and owner. Version 0 is the initial
// state ("{}" or the template), which every key has. Replay uses it to
// read the exact version a run rendered (journal.MemCtx's
// workingMemoryVersion).
//
// Errors: ErrVersionGone (its text naming key, n and the current version)
// when the history does not hold n, an erasure having removed it;
// ErrInvalidKey for a key that does not parse or is of the other scope;
// the database's (ctx's when cancelled). The version's Mode is the one it
// was written in (see Get).
func (m *Memory) GetVersion(ctx context.Context, key string, n int64) (State, error) {
	st, err := m.getVersion(ctx, key, n)
	return st, m.closed(err)
}

// getVersion is GetVersion without Config.Closed.
func (m *Memory) getVersion(ctx context.Context, key string, n int64) (State, error) {
	cur, err := m.get(ctx, key) // the key's check, and the current version
	if err != nil {
		return State{}, err
	}
	if n == 0 {
		return State{Key: key, Mode: m.cfg.Mode, Content: m.initial()}, nil
	}
	st := State{Key: key, Version: n}
	var ms int64
	var mode string
	err = m.conn.QueryRowContext(ctx,
		`SELECT mode, content, updated_at, resource_id FROM working_memory_history WHERE scope = ? AND version = ?`, key, n).
		Scan(&mode, &st.Content, &ms, &st.ResourceID)
	if errors.Is(err, sql.ErrNoRows) {
		return State{}, fmt.Errorf("%w: %s v%d (the state is v%d now)", ErrVersionGone, key, n, cur.Version)
	}
	if err != nil {
		return State{}, fmt.Errorf("working: read %s v%d: %w", key, n, err)
	}
	st.Mode, st.UpdatedAt = historyMode(mode, m.cfg.Mode), time.UnixMilli(ms).UTC()
	return st, nil
}
