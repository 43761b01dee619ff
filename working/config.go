package working

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// storedConfig is the part of a Config kept in the database: what renders
// and validates a state (the functions and clocks are the process's own).
type storedConfig struct {
	Mode     Mode            `json:"mode"`
	Schema   json.RawMessage `json:"schema,omitempty"`
	Template string          `json:"template,omitempty"`
	Scope    Scope           `json:"scope"`
	ReadOnly bool            `json:"readOnly,omitempty"`
	MaxChars int             `json:"maxChars,omitempty"`
}

// Execer is what SaveConfig writes through: the memory's *sql.DB or a
// transaction of it; SaveConfig speaks the memory's dialect (SQLite or
// Postgres). The engine's Open saves its configuration itself
// (engine.Config.WorkingMemory): the engine hands out neither its database
// nor a transaction on it.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// SaveConfig stores m's configuration (mode, schema or template, scope,
// read-only flag, maxChars) as the database's working-memory configuration,
// replacing the one stored, so that a reader that opens the database
// without a configuration of its own (LoadConfig) renders and validates
// states as m does. Storing the configuration already stored writes
// nothing. Errors: the database's (ctx's when cancelled).
func (m *Memory) SaveConfig(ctx context.Context, db Execer) error {
	b, err := json.Marshal(storedConfig{Mode: m.cfg.Mode, Schema: m.Schema(), Template: m.cfg.Template,
		Scope: m.cfg.Scope, ReadOnly: m.cfg.ReadOnly, MaxChars: m.cfg.MaxChars})
	if err != nil {
		return fmt.Errorf("working: store configuration: %w", err)
	}
	// db is m's database or a transaction of it: m's dialect.
	_, err = db.ExecContext(ctx, m.dialect.Rebind(`INSERT INTO working_config (id, config, updated_at) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at
		WHERE working_config.config != excluded.config`), string(b), m.cfg.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("working: store configuration: %w", err)
	}
	return nil
}

// LoadConfig returns the working-memory configuration stored by SaveConfig
// and true, or false when none is stored. Its OwnerOf, Redact and Now are
// unset: the caller sets them as for a configuration of its own. A stored
// configuration that does not parse is ErrInvalidConfig. q is SQLite or
// Postgres (the statement has no placeholders).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func LoadConfig(ctx context.Context, q Querier) (Config, bool, error) {
	var raw string
	err := q.QueryRowContext(ctx, `SELECT config FROM working_config WHERE id = 1`).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return Config{}, false, nil
	}
	if err != nil {
		return Config{}, false, fmt.Errorf("working: read stored configuration: %w", err)
	}
	var sc storedConfig
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return Config{}, false, fmt.Errorf("%w: stored configuration: %v", ErrInvalidConfig, err)
	}
	return Config{Mode: sc.Mode, Schema: sc.Schema, Template: sc.Template, Scope: sc.Scope, ReadOnly: sc.ReadOnly, MaxChars: sc.MaxChars}, true, nil
}
