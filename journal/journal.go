package journal

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Scopes of the journal table.
const (
	// ScopeMemo holds memoized steps (observer, reflector calls).
	ScopeMemo = "memo"
	// ScopeTool holds durable tool applications, keyed by ToolKey.String.
	ScopeTool = "tool"
	// ScopeMemCtx holds memctx records, keyed "<runId>:memctx".
	ScopeMemCtx = "memctx"
)

// Journal records step outputs, tool applications and memctx records in the
// journal table. It is safe for concurrent use. It does not own the *sql.DB.
type Journal struct {
	db  *sql.DB
	now func() time.Time
	// conn runs the statements that are not cached, rebound to the
	// database's dialect (store.Bound: db itself on SQLite).
	conn    store.Conn
	dialect store.Dialect

	mu       sync.Mutex
	inflight map[string]*call

	// stmts holds the journal's fixed statements, prepared once on the
	// pool: the SQLite driver otherwise prepares the SQL afresh on every
	// call, a visible part of every LoadContext's memctx write and run-id
	// check (BENCHMARKS.md).
	stmts *store.Stmts
}

type call struct {
	done  chan struct{}
	input string // the input digest of the running application
	out   []byte
	err   error
}

// New returns a journal over db, a SQLite or Postgres database holding
// mnemo's schema, whose dialect it speaks. now is the clock for record
// times; nil means time.Now. It is for mnemo's own packages: the engine
// does not hand out its database, and a library user gets the engine's
// journal from engine.Engine.Journal.
func New(db *sql.DB, now func() time.Time) *Journal {
	if now == nil {
		now = time.Now
	}
	stmts := store.NewStmts(db)
	return &Journal{db: db, now: now, inflight: map[string]*call{}, stmts: stmts,
		conn: store.Bound(db), dialect: stmts.Dialect()}
}

// Step runs fn at most once for (scope, key) and returns its output. When a
// record exists, Step returns the recorded bytes without calling fn. When fn
// fails, nothing is recorded and its error is returned. Concurrent callers of
// one key in this process wait for a single execution.
//
// The key must include everything the output depends on (for the observer:
// thread, fromSeq, toSeq, prompt version and model).
func (j *Journal) Step(ctx context.Context, scope, key string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	return j.once(ctx, scope, key, "", "", "", fn)
}

// Recorded reports the output recorded under (scope, key), or ErrNotFound.
func (j *Journal) Recorded(ctx context.Context, scope, key string) ([]byte, error) {
	var out []byte
	err := j.stmts.QueryRow(ctx,
		`SELECT output FROM journal WHERE scope = ? AND key = ?`, scope, key).Scan(&out)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("journal: read %s/%s: %w", scope, key, err)
	}
	return out, nil
}

// ToolKey names one tool application: the call the model made in a run of
// a thread owned by a resource. Its journal key is the JSON array
// [RunID, ThreadID, ResourceID, CallID], so no two keys collide whatever
// the ids hold.
type ToolKey struct {
	// RunID is the run that made the call.
	RunID string
	// ThreadID is the run's thread.
	ThreadID string
	// ResourceID is the thread's resource.
	ResourceID string
	// CallID is the tool call's id.
	CallID string
}

// String is the journal key of k.
func (k ToolKey) String() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as SQLite's json_array, which migrated old keys
	_ = enc.Encode([]string{k.RunID, k.ThreadID, k.ResourceID, k.CallID})
	return strings.TrimSuffix(buf.String(), "\n")
}

// Apply records the application of one tool call so that it happens at most
// once: the first call runs fn and records its result; any later call with
// the same key (run, thread, resource and tool call id), also after a
// restart, returns the recorded result without running fn. The key's thread
// and resource are recorded with it, so erasure finds it. fn's effects and
// the record are not in one transaction: fn should itself be idempotent on
// crash (working memory keys its versions by tool call id).
//
// Apply does not check that the run belongs to the thread: callers claim it
// first (ClaimRun). Errors: fn's, unwrapped (nothing is recorded), or the
// database's (ctx's when cancelled).
func (j *Journal) Apply(ctx context.Context, k ToolKey, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	return j.once(ctx, ScopeTool, k.String(), k.ThreadID, k.ResourceID, "", fn)
}

// ApplyInput is Apply for a call whose input (the function and its
// arguments) has the digest input: the digest is recorded with the
// application, and a later call under the same key with another digest is
// not the same call: it gets ErrCallReused, runs nothing and records
// nothing. An application recorded without a digest (by Apply, or before
// digests were kept) matches any input.
func (j *Journal) ApplyInput(ctx context.Context, k ToolKey, input string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	return j.once(ctx, ScopeTool, k.String(), k.ThreadID, k.ResourceID, input, fn)
}

// recordedInput is Recorded that also checks the recorded input digest.
func (j *Journal) recordedInput(ctx context.Context, scope, key, input string) ([]byte, error) {
	var out []byte
	var rec string
	err := j.stmts.QueryRow(ctx,
		`SELECT output, input_hash FROM journal WHERE scope = ? AND key = ?`, scope, key).Scan(&out, &rec)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("journal: read %s/%s: %w", scope, key, err)
	case !sameInput(rec, input):
		return nil, ErrCallReused
	}
	return out, nil
}

// sameInput reports whether two input digests name the same call; an empty
// digest is unknown and matches any.
func sameInput(a, b string) bool { return a == "" || b == "" || a == b }

func (j *Journal) once(ctx context.Context, scope, key, thread, resource, input string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	if out, err := j.recordedInput(ctx, scope, key, input); err == nil {
		return out, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	id := scope + "\x00" + key
	j.mu.Lock()
	if c, ok := j.inflight[id]; ok {
		j.mu.Unlock()
		if !sameInput(c.input, input) {
			return nil, ErrCallReused
		}
		select {
		case <-c.done:
			if c.err != nil {
				return nil, c.err
			}
			return append([]byte(nil), c.out...), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &call{done: make(chan struct{}), input: input}
	j.inflight[id] = c
	j.mu.Unlock()

	c.out, c.err = j.run(ctx, scope, key, thread, resource, input, fn)
	j.mu.Lock()
	delete(j.inflight, id)
	j.mu.Unlock()
	close(c.done)
	if c.err != nil {
		return nil, c.err
	}
	return append([]byte(nil), c.out...), nil
}

func (j *Journal) run(ctx context.Context, scope, key, thread, resource, input string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	if scope == ScopeTool {
		// A tool application runs once across processes too (on Postgres;
		// keylock.go); a memoized step may run in each racing process.
		unlock, err := j.lockKey(ctx, scope, key)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	// Another caller may have finished between the first read and the lock.
	if out, err := j.recordedInput(ctx, scope, key, input); err == nil || !errors.Is(err, ErrNotFound) {
		return out, err
	}
	out, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []byte{}
	}
	// INSERT OR IGNORE: when another process recorded first, its output wins
	// and is returned, so every caller sees the same bytes.
	if _, err := j.stmts.Exec(ctx, j.dialect.Text(
		`INSERT OR IGNORE INTO journal (scope, key, thread_id, resource_id, output, input_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, input_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT DO NOTHING`),
		scope, key, thread, resource, out, input, j.now().UnixMilli()); err != nil {
		return nil, fmt.Errorf("journal: record %s/%s: %w", scope, key, err)
	}
	return j.recordedInput(ctx, scope, key, input)
}

// Forget deletes the records of scope whose key starts with prefix and
// returns how many were deleted. It compares every record of scope
// (substr: no index range). No mnemo package calls it: an erasure deletes
// a thread's memo entries in its own transaction (observe.Invalidate) and
// a run's tool applications by byte range (ForgetRunTools).
// For mnemo's own packages: on an engine's journal (engine.Engine.Journal)
// it deletes records the engine's runs rely on; never call it there.
// Errors: the database's (ctx's when cancelled).
func (j *Journal) Forget(ctx context.Context, scope, prefix string) (int64, error) {
	res, err := j.conn.ExecContext(ctx,
		`DELETE FROM journal WHERE scope = ? AND substr(key, 1, ?) = ?`, scope, len(prefix), prefix)
	if err != nil {
		return 0, fmt.Errorf("journal: forget %s/%s: %w", scope, prefix, err)
	}
	return res.RowsAffected()
}
