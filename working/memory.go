package working

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Mode is how a working memory holds its state.
type Mode string

// Modes of a working memory.
const (
	// ModeSchema: a JSON object described by a JSON Schema, updated by JSON
	// Merge Patch.
	ModeSchema Mode = "schema"
	// ModeTemplate: free markdown starting from a template, replaced whole or
	// edited by search/replace.
	ModeTemplate Mode = "template"
)

// Scope says which conversations share one state.
type Scope string

// Scopes of a working memory.
const (
	// ScopeThread: one state per thread (key "thread:<threadId>").
	ScopeThread Scope = "thread"
	// ScopeResource: one state per resource, shared by all its threads (key
	// "resource:<resourceId>").
	ScopeResource Scope = "resource"
)

// Defaults for Config fields left zero.
const (
	// DefaultMaxChars bounds the stored state: it is rendered into every
	// prompt, so 8000 characters (about 2000 tokens) keeps it a small part of
	// a typical context window.
	DefaultMaxChars = 8000
	// DefaultMaxRetries is how many times an update re-reads and re-merges
	// after losing the version compare-and-swap. Each loss means another
	// update committed, so 32 covers dozens of concurrent writers of one
	// scope.
	DefaultMaxRetries = 32
)

// Config describes a working memory. The zero value is a thread-scoped
// template memory with an empty template. New copies it.
type Config struct {
	// Mode is ModeSchema or ModeTemplate. Zero means ModeSchema when Schema
	// or SchemaOf is set, ModeTemplate otherwise.
	Mode Mode
	// Schema is a raw JSON Schema (draft 2020-12 unless it says otherwise in
	// $schema) whose root describes an object. Local $refs are inlined. The
	// schema's "required" is relaxed on the stored state wherever merge
	// semantics reach (object properties, not array items): the state fills
	// in over a conversation, so a partial state is valid. Set Schema or
	// SchemaOf, not both.
	Schema json.RawMessage
	// SchemaOf is a Go value whose type's schema is reflected with SchemaFor,
	// e.g. Profile{}.
	SchemaOf any
	// Template is the starting markdown document in template mode, e.g.
	// "# User\n- Name:\n- City:\n".
	Template string
	// Scope is ScopeThread or ScopeResource; zero means ScopeThread.
	Scope Scope
	// ReadOnly renders the state into the system part but offers the model
	// no tool to change it. This package's methods still update it.
	ReadOnly bool
	// MaxChars bounds the stored content in characters (runes; compact JSON
	// in schema mode); zero means DefaultMaxChars, negative is refused
	// (ErrInvalidConfig naming MaxChars).
	MaxChars int
	// MaxRetries bounds the compare-and-swap retries of one update; zero
	// means DefaultMaxRetries, negative is refused (ErrInvalidConfig).
	MaxRetries int
	// Now is the clock for version times; nil means time.Now.
	Now func() time.Time
	// OwnerOf binds states to resources: it returns the resource that owns
	// the state under key (for "thread:<id>" the thread's resource, for
	// "resource:<id>" the resource), reading through q, which is the
	// update's write transaction when called from inside one. An error
	// refuses the update and stores nothing (the engine returns its
	// ErrThreadNotFound for a thread that does not exist). Every update
	// resolves the owner, refuses an Origin.ResourceID that differs from it
	// (ErrOwnerMismatch) and stores the owner with the state, so that
	// erasing a resource reaches every state it wrote. Nil means the owner
	// is Origin.ResourceID, or the id of a "resource:<id>" key, or none.
	// The engine always sets it.
	OwnerOf func(ctx context.Context, q Querier, key string) (resourceID string, err error)
	// Redact removes secrets from every content before it is stored (in
	// schema mode it gets the compact JSON text and must return a JSON
	// object the schema still accepts, else the update is refused with
	// ErrInvalidPatch or ErrSchemaViolation), from a Merge patch and a Set
	// content before they are validated, and from the messages of refusals
	// (which reach the model and the journal; errors.Is still works). It
	// must be deterministic. Nil stores content unchanged; the engine sets
	// its Config.Redactor here.
	Redact func(content string) string
	// Closed reports that the database's owner has closed it: while it
	// returns nil the memory works; once it returns an error, every method
	// that reads or writes the database (Get, GetAt, History, Render,
	// Merge, Set, Edit) returns that error instead of the database's
	// ("sql: database is closed"), also when the close happened during
	// the call. Nil means the database's errors as they are. The engine
	// sets it, so a memory it gave out answers engine.ErrClosed after
	// Close.
	Closed func() error
	// RunCheck, when set, is called for an update whose Origin has a RunID,
	// inside the update's write transaction (q reads through it; on
	// Postgres it is a store.Bound transaction) after the owner's and the
	// replayed call's reads and before the version's statements, so that
	// a lock it takes comes before the write's row locks. An error refuses the
	// update: nothing is stored and the update returns it as it is (the
	// engine refuses a run whose recorded context holds a turn erased
	// since, journal.ErrRunContextErased, and holds a lock that keeps an
	// erasure of the run's resource from committing until the write does).
	// Nil checks nothing.
	RunCheck func(ctx context.Context, q Querier, runID string) error
	// Wrote, when set, is called at the end of each update (Merge,
	// MergeOver, Set, Edit) with whether it committed a new version and
	// its error (nil for an update that changed nothing or found its tool
	// call applied already), and the update returns what Wrote returns in
	// the error's place. The engine sets it to keep the last write the
	// disk refused for lack of room, and clear it when a write commits
	// (engine.DiskFull), as its own writes do. Nil returns the error as
	// it is.
	Wrote func(committed bool, err error) error
	// Writable, when set, is called by each update (Merge, MergeOver,
	// Set, Edit) before it reads or writes the database: a non-nil error
	// ends the update, nothing stored, and is returned as it is (a
	// database's error, not a refusal: Refused is false). The
	// engine sets it to refuse new states once SQLite has reported its
	// database file damaged (engine.ErrDatabaseCorrupt): a state written
	// into that file is lost when a backup is restored. Nil refuses
	// nothing.
	Writable func() error
}

// Querier is what OwnerOf may read through: the pool or the update's write
// transaction. Its statements are written in SQLite's text (? and ?NNN
// placeholders) on either backend: on Postgres the memory rebinds them
// before they reach it.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Memory is a configured working memory over the shared database (SQLite
// or Postgres). It is safe for concurrent use. It does not own the *sql.DB:
// closing the database is the caller's job.
type Memory struct {
	db *sql.DB
	// conn runs the pool's statements in db's dialect (store.Bound: db
	// itself on SQLite).
	conn    store.Conn
	dialect store.Dialect
	cfg     Config
	schema  *compiledSchema // nil in template mode
	// beforeCommit, when set (by tests only), runs between an update's
	// last statement and its commit.
	beforeCommit func(*store.Tx)
}

// New returns a working memory over db, a SQLite or Postgres database
// holding mnemo's schema, whose dialect it speaks. It returns
// ErrInvalidConfig for an inconsistent config and ErrInvalidSchema for a
// schema it cannot use. It is for mnemo's own packages: the engine does
// not hand out its database; a library user opens the engine's working
// memory with engine.Engine.WorkingMemory or OpenWorkingMemory.
func New(db *sql.DB, cfg Config) (*Memory, error) {
	if db == nil {
		return nil, fmt.Errorf("%w: nil database", ErrInvalidConfig)
	}
	m, err := configure(cfg)
	if err != nil {
		return nil, err
	}
	m.db, m.conn, m.dialect = db, store.Bound(db), store.DialectOf(db)
	return m, nil
}

// CheckConfig returns the error New would return for cfg, without a
// database: ErrInvalidConfig for an inconsistent config, ErrInvalidSchema
// for a schema it cannot use, nil for one New takes. mnemo serve --config
// checks with it before it creates anything in the data directory.
func CheckConfig(cfg Config) error {
	_, err := configure(cfg)
	return err
}

// configure is New without the database: cfg's defaults filled in and
// checked, the schema compiled.
func configure(cfg Config) (*Memory, error) {
	hasSchema := len(cfg.Schema) > 0 || cfg.SchemaOf != nil
	if cfg.Mode == "" {
		cfg.Mode = ModeTemplate
		if hasSchema {
			cfg.Mode = ModeSchema
		}
	}
	if cfg.Scope == "" {
		cfg.Scope = ScopeThread
	}
	// A negative bound was read as the default: refused, naming it.
	if cfg.MaxChars < 0 {
		return nil, fmt.Errorf("%w: MaxChars must be 0 (DefaultMaxChars, %d) or more, got %d", ErrInvalidConfig, DefaultMaxChars, cfg.MaxChars)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("%w: MaxRetries must be 0 (DefaultMaxRetries, %d) or more, got %d", ErrInvalidConfig, DefaultMaxRetries, cfg.MaxRetries)
	}
	if cfg.MaxChars == 0 {
		cfg.MaxChars = DefaultMaxChars
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Scope != ScopeThread && cfg.Scope != ScopeResource {
		return nil, fmt.Errorf("%w: scope %q, want thread or resource", ErrInvalidConfig, cfg.Scope)
	}
	m := &Memory{cfg: cfg}
	switch cfg.Mode {
	case ModeSchema:
		if len(cfg.Schema) > 0 && cfg.SchemaOf != nil {
			return nil, fmt.Errorf("%w: set Schema or SchemaOf, not both", ErrInvalidConfig)
		}
		if cfg.Template != "" {
			return nil, fmt.Errorf("%w: Template is for template mode", ErrInvalidConfig)
		}
		raw := cfg.Schema
		if cfg.SchemaOf != nil {
			var err error
			if raw, err = SchemaFor(cfg.SchemaOf); err != nil {
				return nil, err
			}
		}
		if len(raw) == 0 {
			return nil, fmt.Errorf("%w: schema mode needs Schema or SchemaOf", ErrInvalidConfig)
		}
		cs, err := compileSchema(raw)
		if err != nil {
			return nil, err
		}
		m.schema = cs
		m.cfg.Schema, m.cfg.SchemaOf = cs.raw, nil
	case ModeTemplate:
		if hasSchema {
			return nil, fmt.Errorf("%w: a schema needs ModeSchema", ErrInvalidConfig)
		}
		if n := len([]rune(cfg.Template)); n > cfg.MaxChars {
			return nil, fmt.Errorf("%w: template has %d characters, MaxChars is %d", ErrInvalidConfig, n, cfg.MaxChars)
		}
	default:
		return nil, fmt.Errorf("%w: mode %q, want schema or template", ErrInvalidConfig, cfg.Mode)
	}
	return m, nil
}

// Mode reports the memory's mode.
func (m *Memory) Mode() Mode { return m.cfg.Mode }

// Scope reports the memory's scope.
func (m *Memory) Scope() Scope { return m.cfg.Scope }

// ReadOnly reports whether the model may not update the memory.
func (m *Memory) ReadOnly() bool { return m.cfg.ReadOnly }

// Schema returns a copy of the configured (or reflected) JSON Schema; nil in
// template mode.
func (m *Memory) Schema() json.RawMessage {
	if m.schema == nil {
		return nil
	}
	return append(json.RawMessage(nil), m.schema.raw...)
}

// UpdateSchema returns a copy of the schema an update must follow in schema
// mode: the configured schema with $refs inlined, "required" relaxed and
// $schema/$id/$defs removed, ready to be a tool's parameters. Keys are in
// lexical order. Nil in template mode.
func (m *Memory) UpdateSchema() json.RawMessage {
	if m.schema == nil {
		return nil
	}
	return append(json.RawMessage(nil), m.schema.params...)
}

// ThreadKey is the scope key of a thread-scoped state.
func ThreadKey(threadID string) string { return string(ScopeThread) + ":" + threadID }

// ResourceKey is the scope key of a resource-scoped state.
func ResourceKey(resourceID string) string { return string(ScopeResource) + ":" + resourceID }

// ParseKey splits a scope key into its scope and id, or returns
// ErrInvalidKey.
func ParseKey(key string) (Scope, string, error) {
	s, id, ok := strings.Cut(key, ":")
	if !ok || id == "" || (Scope(s) != ScopeThread && Scope(s) != ScopeResource) {
		return "", "", fmt.Errorf("%w: %q, want thread:<id> or resource:<id>", ErrInvalidKey, key)
	}
	return Scope(s), id, nil
}

// Key returns the scope key of the state a conversation uses: the thread's
// in thread scope, the resource's in resource scope. The id the scope needs
// must be non-empty (ErrInvalidKey).
func (m *Memory) Key(threadID, resourceID string) (string, error) {
	id, key := threadID, ThreadKey(threadID)
	if m.cfg.Scope == ScopeResource {
		id, key = resourceID, ResourceKey(resourceID)
	}
	if id == "" {
		return "", fmt.Errorf("%w: %s scope needs a %s id", ErrInvalidKey, m.cfg.Scope, m.cfg.Scope)
	}
	return key, nil
}

func (m *Memory) checkKey(key string) error {
	s, _, err := ParseKey(key)
	if err != nil {
		return err
	}
	if s != m.cfg.Scope {
		return fmt.Errorf("%w: %q is a %s key but the memory is %s-scoped", ErrInvalidKey, key, s, m.cfg.Scope)
	}
	return nil
}

// State is the working memory of one scope key at one version.
type State struct {
	Key string // "thread:<id>" or "resource:<id>"
	// Mode is the mode it was written in: the memory's (Memory.Mode), or
	// the other one for a state written before the configuration changed
	// (Foreign). Version 0 has the memory's.
	Mode    Mode
	Content string // compact JSON object (schema mode) or markdown (template mode)
	// Version is 1, 2, 3…; 0 when never written (Content is the initial
	// state). An erasure that removes every version clears the state to
	// its initial content under the next number (Rebuild): numbers are
	// never issued twice.
	Version   int64
	UpdatedAt time.Time // when Version was written; zero for version 0
	// ResourceID is the resource that owns the state (see Config.OwnerOf);
	// empty for version 0 and for states written without an owner.
	ResourceID string
}

// Foreign reports whether st was written in another mode than m's: the
// working-memory configuration changed from schema to template mode, or
// back, since. Such a state reads and renders as what it is (RenderState
// says so); Set in m's mode replaces it, while Merge and Edit, which need
// it in m's mode, refuse with ErrModeMismatch.
// Version 0, the initial content, is of m's mode whatever st.Mode says.
func (m *Memory) Foreign(st State) bool {
	return st.Version > 0 && st.Mode != "" && st.Mode != m.cfg.Mode
}

// Value decodes a schema-mode state into a fresh map (numbers as
// json.Number); changing the map changes nothing stored. It returns
// ErrWrongMode for a template-mode state.
func (s State) Value() (map[string]any, error) {
	if s.Mode != ModeSchema {
		return nil, fmt.Errorf("%w: Value of a %s state", ErrWrongMode, s.Mode)
	}
	v, err := decodeJSON([]byte(s.Content))
	if err != nil {
		return nil, fmt.Errorf("working: decode state %s: %w", s.Key, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("working: decode state %s: not an object", s.Key)
	}
	return obj, nil
}

// Initial returns the content of a never-written state: "{}" in schema
// mode, the template in template mode.
func (m *Memory) Initial() string { return m.initial() }

// initial is the content of a never-written state.
func (m *Memory) initial() string {
	if m.cfg.Mode == ModeSchema {
		return "{}"
	}
	return m.cfg.Template
}

// Get returns the current state of key. A key never written has Version 0
// and the initial content ("{}" or the template); that is not an error.
// A state written in the other mode (the configuration changed since) is
// returned as stored, its Mode saying which (Foreign). Errors:
// ErrInvalidKey for a key that does not parse or is of the other scope;
// the database's (ctx's when cancelled).
func (m *Memory) Get(ctx context.Context, key string) (State, error) {
	st, err := m.get(ctx, key)
	return st, m.closed(err)
}

// closed returns Config.Closed's error when the database's owner has
// closed it (before a call: err nil; after a failed one), else err.
func (m *Memory) closed(err error) error {
	if m.cfg.Closed == nil {
		return err
	}
	if cerr := m.cfg.Closed(); cerr != nil {
		return cerr
	}
	return err
}

// get is Get without Config.Closed.
func (m *Memory) get(ctx context.Context, key string) (State, error) {
	if err := m.closed(nil); err != nil {
		return State{}, err
	}
	if err := m.checkKey(key); err != nil {
		return State{}, err
	}
	st := State{Key: key, Mode: m.cfg.Mode}
	var mode string
	var ms int64
	err := m.conn.QueryRowContext(ctx,
		`SELECT mode, content, version, updated_at, resource_id FROM working_memory WHERE scope = ?`, key).
		Scan(&mode, &st.Content, &st.Version, &ms, &st.ResourceID)
	if errors.Is(err, sql.ErrNoRows) {
		st.Content = m.initial()
		return st, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("working: read %s: %w", key, err)
	}
	st.Mode = Mode(mode)
	st.UpdatedAt = time.UnixMilli(ms).UTC()
	return st, nil
}

// Version is one entry of a scope's history.
type Version struct {
	// Key is the key of the scope whose history it is.
	Key string
	// Version is its number in the key's history, from 1, one more per write.
	Version int64
	// Mode is the mode it was written in: one key's history holds both
	// when its state was replaced after the configuration changed.
	Mode Mode
	// Content is the whole working memory as written (Markdown or JSON, per Mode).
	Content    string
	RunID      string // the run that wrote it; empty when not written by a run
	ToolCallID string // the tool call that wrote it; empty when not written by a tool
	// UpdatedAt is when it was written (Config.Now, UTC).
	UpdatedAt time.Time
}

// History lists the versions of key, newest first; limit ≤ 0 means all. A
// key never written has an empty history. Errors: ErrInvalidKey for a key
// that does not parse or is of the other scope; the database's (ctx's
// when cancelled).
func (m *Memory) History(ctx context.Context, key string, limit int) ([]Version, error) {
	h, err := m.history(ctx, key, limit)
	return h, m.closed(err)
}

// history is History without Config.Closed.
func (m *Memory) history(ctx context.Context, key string, limit int) ([]Version, error) {
	if err := m.closed(nil); err != nil {
		return nil, err
	}
	if err := m.checkKey(key); err != nil {
		return nil, err
	}
	var lim any = limit
	if limit <= 0 {
		lim = -1 // SQLite: no limit
		if m.dialect == store.Postgres {
			lim = nil // Postgres: LIMIT NULL is no limit (a negative one is an error)
		}
	}
	rows, err := m.conn.QueryContext(ctx,
		`SELECT version, mode, content, run_id, tool_call_id, updated_at FROM working_memory_history
		 WHERE scope = ? ORDER BY version DESC LIMIT ?`, key, lim)
	return scanVersions(rows, err, key)
}

// scanVersions reads the history rows of key that a query selected
// (version, mode, content, run_id, tool_call_id, updated_at in Unix
// milliseconds), in the query's order; err is the query's error.
func scanVersions(rows *sql.Rows, err error, key string) ([]Version, error) {
	if err != nil {
		return nil, fmt.Errorf("working: history %s: %w", key, err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v := Version{Key: key}
		var ms int64
		var mode string
		if err := rows.Scan(&v.Version, &mode, &v.Content, &v.RunID, &v.ToolCallID, &ms); err != nil {
			return nil, fmt.Errorf("working: history %s: %w", key, err)
		}
		v.Mode, v.UpdatedAt = Mode(mode), time.UnixMilli(ms).UTC()
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("working: history %s: %w", key, err)
	}
	return out, nil
}

// GetAt returns the state of key as it stood at time at: the newest version
// written at or before at (history times have millisecond precision), or the
// initial state (Version 0) when none was. Replay uses it to rebuild a past
// prompt. The version's Mode is the one it was written in (see Get).
// Errors: ErrInvalidKey for a key that does not parse or is of the other
// scope; the database's (ctx's when cancelled).
func (m *Memory) GetAt(ctx context.Context, key string, at time.Time) (State, error) {
	st, err := m.getAt(ctx, key, at)
	return st, m.closed(err)
}

// getAt is GetAt without Config.Closed.
func (m *Memory) getAt(ctx context.Context, key string, at time.Time) (State, error) {
	if err := m.closed(nil); err != nil {
		return State{}, err
	}
	if err := m.checkKey(key); err != nil {
		return State{}, err
	}
	st := State{Key: key, Mode: m.cfg.Mode}
	var ms int64
	var mode string
	err := m.conn.QueryRowContext(ctx,
		`SELECT version, mode, content, updated_at, resource_id FROM working_memory_history
		 WHERE scope = ? AND updated_at <= ? ORDER BY version DESC LIMIT 1`, key, at.UnixMilli()).
		Scan(&st.Version, &mode, &st.Content, &ms, &st.ResourceID)
	if errors.Is(err, sql.ErrNoRows) {
		st.Content = m.initial()
		return st, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("working: read %s at %s: %w", key, at.Format(time.RFC3339Nano), err)
	}
	st.Mode, st.UpdatedAt = historyMode(mode, m.cfg.Mode), time.UnixMilli(ms).UTC()
	return st, nil
}

// historyMode is the mode of a history row: its own, or def for a row
// that records none (”: written before the column existed and not
// filled by the migration because its state row was gone).
func historyMode(mode string, def Mode) Mode {
	if mode == "" {
		return def
	}
	return Mode(mode)
}

// StoredMode reports the mode key's state was written in; ok is false when
// it was never written. It needs no Config, so tools (mnemo wm) can inspect
// a state before choosing how to open it. db is SQLite or Postgres.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.StoredWorkingMode is the library's way.
func StoredMode(ctx context.Context, db *sql.DB, key string) (mode Mode, ok bool, err error) {
	if _, _, err := ParseKey(key); err != nil {
		return "", false, err
	}
	var s string
	err = store.Bound(db).QueryRowContext(ctx, `SELECT mode FROM working_memory WHERE scope = ?`, key).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("working: read %s: %w", key, err)
	}
	return Mode(s), true, nil
}

// storedResourcesSQL is StoredResources' statement in dialect d: the
// resource keys after $1, in byte order, at most $2.
func storedResourcesSQL(d store.Dialect) string {
	return d.Text(
		`SELECT scope FROM working_memory WHERE scope > ? AND scope < 'resource;' ORDER BY scope LIMIT ?`,
		`SELECT scope FROM working_memory WHERE scope COLLATE "C" > $1 AND scope COLLATE "C" < 'resource;' ORDER BY scope COLLATE "C" LIMIT $2`)
}

// StoredResources returns the ids of up to limit resources (1 or more)
// that have a resource-scope state (ResourceKey), in byte order of their
// keys, from the first after the id after ("": from the first); fewer than
// limit when there are no more. A resource's state needs no thread, so
// listing threads does not find every state: this does. db is SQLite or
// Postgres (compared in byte order there too, COLLATE "C").
//
// For mnemo's own packages: engine.Engine.WorkingMemoryResources is the
// library's way.
//
// A page reads about limit rows of an index in byte order, whatever the
// number of states: SQLite's primary key (BINARY), Postgres's
// working_memory_by_scope_bytes (schema version 8; the primary key, in
// the column's collation, serves no COLLATE "C" range, and each page read
// the whole table).
func StoredResources(ctx context.Context, db *sql.DB, after string, limit int) ([]string, error) {
	rows, err := db.QueryContext(ctx, storedResourcesSQL(store.DialectOf(db)), ResourceKey(after), limit)
	if err != nil {
		return nil, fmt.Errorf("working: list resource states: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return nil, fmt.Errorf("working: list resource states: %w", err)
		}
		ids = append(ids, strings.TrimPrefix(key, ResourceKey("")))
	}
	return ids, rows.Err()
}
