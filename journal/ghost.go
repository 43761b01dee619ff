package journal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ghostThreadsWalk is GhostRuns' statement with neither a thread nor a
// resource (Expire's, every call): the memctx records' thread ids, each
// the least above the one before (a seek of journal_by_thread), each
// looked up once in threads for its owner (o, materialized: read three
// times below), then the records of those that no stored thread of their
// resource holds (?2 and ?3 are "" here: the walk starts above the empty
// id): every record of an id with no stored thread, and of a stored
// thread's id the records of other resources (their LoadContext on the id
// before the thread's resource created it), read as two ranges of
// journal_by_thread_resource (resource_id below and above the thread's
// owner), so that a stored thread's own records are not read. CROSS JOIN
// keeps SQLite's join order: on a journal without statistics its planner
// read every memctx record and looked each up in ids. It read every
// memctx record before (4.8 s an Expire with nothing due on SQLite at
// 200,000 runs: BENCHMARKS.md). Without o, SQLite looked each id up in
// threads in each branch, three lookups an id, and Postgres hashed the
// whole threads table twice (BENCHMARKS.md, perf60).
const ghostThreadsWalk = `WITH RECURSIVE ids(id) AS (
		SELECT MIN(thread_id) FROM journal WHERE scope = ?1 AND thread_id > ?2
		UNION ALL SELECT (SELECT MIN(thread_id) FROM journal WHERE scope = ?1 AND thread_id > ids.id) FROM ids WHERE ids.id IS NOT NULL),
	o(id, owner) AS MATERIALIZED (SELECT ids.id, (SELECT threads.resource_id FROM threads WHERE threads.id = ids.id) FROM ids
		WHERE ids.id IS NOT NULL AND ?3 = '')
	SELECT j.key, j.thread_id, j.resource_id, j.created_at FROM o CROSS JOIN journal j
	WHERE o.owner IS NULL AND j.scope = ?1 AND j.thread_id = o.id
	UNION ALL SELECT j.key, j.thread_id, j.resource_id, j.created_at FROM o CROSS JOIN journal j
	WHERE j.scope = '` + ScopeMemCtx + `' AND j.thread_id = o.id AND j.resource_id < o.owner
	UNION ALL SELECT j.key, j.thread_id, j.resource_id, j.created_at FROM o CROSS JOIN journal j
	WHERE j.scope = '` + ScopeMemCtx + `' AND j.thread_id = o.id AND j.resource_id > o.owner`

// ghostPairsWalkPostgres is ghostThreadsWalk on Postgres: it walks the
// memctx records' (thread id, resource) pairs, each the least above the one
// before (a row comparison seeking journal_by_thread_resource), keeps
// those that no stored thread of that id and resource holds (g), and reads
// each kept pair's records by one seek of the same index: one seek a pair
// and one a ghost pair, whatever the planner's statistics. The ranges of
// ghostThreadsWalk were planned, once journal was analyzed (as autovacuum
// does), as two hash joins reading every memctx record (1.2 s an Expire at
// 200,000 runs: BENCHMARKS.md, pg62); OFFSET 0 keeps the last read a
// nested loop of seeks, and scope is a literal so that a generic plan
// still matches the partial index. It takes no arguments.
const ghostPairsWalkPostgres = `WITH RECURSIVE p(t, r) AS (
		(SELECT thread_id, resource_id FROM journal WHERE scope = '` + ScopeMemCtx + `' AND thread_id > ''
			ORDER BY thread_id, resource_id LIMIT 1)
		UNION ALL SELECT n.thread_id, n.resource_id FROM p CROSS JOIN LATERAL (SELECT thread_id, resource_id FROM journal
			WHERE scope = '` + ScopeMemCtx + `' AND (thread_id, resource_id) > (p.t, p.r) ORDER BY thread_id, resource_id LIMIT 1) n),
	g(t, r) AS MATERIALIZED (SELECT t, r FROM p
		WHERE NOT EXISTS (SELECT 1 FROM threads WHERE threads.id = p.t AND threads.resource_id = p.r))
	SELECT j.key, j.thread_id, j.resource_id, j.created_at FROM g CROSS JOIN LATERAL (SELECT key, thread_id, resource_id, created_at
		FROM journal WHERE scope = '` + ScopeMemCtx + `' AND thread_id = g.t AND resource_id = g.r OFFSET 0) j`

// GhostRun is a run recorded under a thread id that has no stored thread
// of its resource: a LoadContext of a new conversation (its first turn
// loads context before it appends), or one that ran just after the thread
// was erased, and such a run still when another resource has created a
// thread of the id since (thread ids are global names; the run stays its
// own resource's).
// Erasure and expiry reach these runs by their thread id (the engine's
// DeleteThread, DeleteResource and Expire). It is for mnemo's own
// packages, as GhostRuns is.
type GhostRun struct {
	// RunID is the run's id.
	RunID string
	// ThreadID is the thread id it was recorded under.
	ThreadID string
	// ResourceID is the resource it was recorded under.
	ResourceID string
	// CreatedMS is when the run was recorded (Unix milliseconds).
	CreatedMS int64
}

// GhostRuns returns, through conn, the memctx records whose thread id has
// no row in the threads table of the record's resource (none, or another
// resource's thread), restricted to thread and to resource
// when they are not empty, in thread, resource and time order. A thread
// id that is a tombstone is one too: no build since 2026-12-06 keeps a
// memctx record under a tombstone (an erasure deletes its owners' runs'
// records and leaves other resources' as they are), but builds before
// rewrote the thread id of another resource's run on an erased thread's
// id to the tombstone and kept its query (walk56 F1), and such a run is
// its resource's, with no stored thread, as any (so are the records of
// a thread id stored before such ids were reserved, "erased-g"). With a
// thread or a resource it seeks journal_by_thread or
// journal_by_resource; with neither it walks the thread ids of the
// memctx records (a seek from each to the next, one per thread id) and
// reads the records of those with no stored thread, and of a stored
// thread's id only the other resources' (ghostThreadsWalk; on Postgres
// it walks the ids' resources instead, ghostPairsWalkPostgres).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func GhostRuns(ctx context.Context, conn store.Conn, thread, resource string) ([]GhostRun, error) {
	q := `SELECT key, thread_id, resource_id, created_at FROM journal
		WHERE scope = ?1 AND thread_id <> '' AND (?2 = '' OR thread_id = ?2) AND (?3 = '' OR resource_id = ?3)
		AND NOT EXISTS (SELECT 1 FROM threads WHERE threads.id = journal.thread_id AND threads.resource_id = journal.resource_id)`
	// The equalities again, unconditional, and no ORDER BY (sorted
	// below): with "?2 = '' OR" alone, or with the ORDER BY, SQLite's
	// planner walked every memctx record in index order (EXPLAIN QUERY
	// PLAN: journal_by_resource (scope=?) for a thread), each erasure of
	// a thread no longer stored and of a resource, and each expiry, a
	// scan of the whole journal inside the erasure's transaction.
	if thread != "" {
		q += ` AND thread_id = ?2`
	}
	if resource != "" {
		q += ` AND resource_id = ?3`
	}
	args := []any{ScopeMemCtx, thread, resource}
	if thread == "" && resource == "" {
		q = ghostThreadsWalk
		if store.DialectOfConn(conn) == store.Postgres {
			q, args = ghostPairsWalkPostgres, nil
		}
	}
	rows, err := store.Bound(conn).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: runs without a thread: %w", err)
	}
	defer rows.Close()
	var out []GhostRun
	for rows.Next() {
		var g GhostRun
		var key string
		if err := rows.Scan(&key, &g.ThreadID, &g.ResourceID, &g.CreatedMS); err != nil {
			return nil, fmt.Errorf("journal: runs without a thread: %w", err)
		}
		g.RunID = strings.TrimSuffix(key, MemCtxKey(""))
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: runs without a thread: %w", err)
	}
	slices.SortFunc(out, func(a, b GhostRun) int {
		return cmp.Or(strings.Compare(a.ThreadID, b.ThreadID), strings.Compare(a.ResourceID, b.ResourceID), cmp.Compare(a.CreatedMS, b.CreatedMS))
	})
	return out, nil
}
