package store

// SchemaVersion is the schema version this build writes, kept in
// PRAGMA user_version. It equals len(migrations) (checked by a test).
const SchemaVersion = 19

// migrations[i] takes the schema from version i to i+1. Released migrations
// are never edited; a change is a new entry.
//
// Table ownership (who writes it):
//
//	threads, messages          package internal/msgstore (the engine's Append and erasure call it)
//	message_blobs, outbox      package internal/msgstore
//	embeddings                 package internal/msgstore (written by the outbox's drainer; recall derives from it)
//	embeddings_suspect         package internal/msgstore (written by the triggers of migration 11; cleared by DropDamaged)
//	message_calls              the triggers of migration 17 on messages (no program writes it; salvage does not copy it)
//	working_memory[_history]   package working
//	working_config             package working
//	observations               package observe
//	dispatches                 package journal (the dispatch journal, journal/dispatch.go)
//	journal, runs              package journal (memoized steps, tool applications, memctx records; run owners)
//	journal_tool_obs           derived from journal by the trigger of migration 16, 18 (deleted with its journal row)
//
// Times are Unix milliseconds (UTC). JSON columns hold compact JSON text.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE threads (
	id            TEXT PRIMARY KEY,
	resource_id   TEXT NOT NULL,
	title         TEXT NOT NULL DEFAULT '',
	metadata      TEXT NOT NULL DEFAULT '{}',
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	last_seq      INTEGER NOT NULL DEFAULT 0,
	message_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX threads_by_resource ON threads(resource_id, id);

CREATE TABLE messages (
	pk           INTEGER PRIMARY KEY,
	id           TEXT NOT NULL UNIQUE,
	thread_id    TEXT NOT NULL REFERENCES threads(id),
	resource_id  TEXT NOT NULL,
	seq          INTEGER NOT NULL,
	role         TEXT NOT NULL CHECK (role IN ('user','assistant','tool')),
	content      TEXT NOT NULL,
	name         TEXT NOT NULL DEFAULT '',
	tool_calls   TEXT,
	tool_call_id TEXT NOT NULL DEFAULT '',
	metadata     TEXT NOT NULL DEFAULT '{}',
	created_at   INTEGER NOT NULL,
	tokens       INTEGER NOT NULL,
	digest       TEXT NOT NULL,
	UNIQUE (thread_id, seq)
);
CREATE INDEX messages_by_resource ON messages(resource_id, thread_id, seq);
CREATE INDEX messages_by_tool_call ON messages(thread_id, tool_call_id) WHERE tool_call_id <> '';

-- Large tool results stored by reference: messages.content holds a bounded
-- summary and this table the full text.
CREATE TABLE message_blobs (
	message_id TEXT PRIMARY KEY,
	content    TEXT NOT NULL
);

-- Index maintenance queued in the write transaction, drained after commit.
-- op is 'index' or 'delete'.
CREATE TABLE outbox (
	id          INTEGER PRIMARY KEY,
	op          TEXT NOT NULL,
	message_id  TEXT NOT NULL,
	resource_id TEXT NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	not_before  INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL
);

CREATE TABLE embeddings (
	message_id  TEXT NOT NULL,
	embedder    TEXT NOT NULL,
	resource_id TEXT NOT NULL,
	dims        INTEGER NOT NULL,
	vector      BLOB NOT NULL,
	PRIMARY KEY (message_id, embedder)
);
CREATE INDEX embeddings_by_resource ON embeddings(embedder, resource_id);

CREATE TABLE working_memory (
	scope      TEXT PRIMARY KEY,
	mode       TEXT NOT NULL,
	content    TEXT NOT NULL,
	version    INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE TABLE working_memory_history (
	scope        TEXT NOT NULL,
	version      INTEGER NOT NULL,
	content      TEXT NOT NULL,
	run_id       TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	updated_at   INTEGER NOT NULL,
	PRIMARY KEY (scope, version)
);

CREATE TABLE observations (
	id             TEXT PRIMARY KEY,
	thread_id      TEXT NOT NULL,
	resource_id    TEXT NOT NULL,
	from_seq       INTEGER NOT NULL,
	to_seq         INTEGER NOT NULL,
	level          TEXT NOT NULL CHECK (level IN ('observation','reflection')),
	content        TEXT NOT NULL,
	sources        TEXT NOT NULL DEFAULT '[]',
	untrusted      INTEGER NOT NULL DEFAULT 0,
	created_at     INTEGER NOT NULL,
	retired_at     INTEGER,
	invalidated_at INTEGER
);
CREATE INDEX observations_by_thread ON observations(thread_id, from_seq);
CREATE INDEX observations_by_resource ON observations(resource_id);

-- The journal: memoized steps, durable tool applications and memctx
-- records, keyed by (scope, key).
CREATE TABLE journal (
	scope       TEXT NOT NULL,
	key         TEXT NOT NULL,
	thread_id   TEXT NOT NULL DEFAULT '',
	resource_id TEXT NOT NULL DEFAULT '',
	output      BLOB NOT NULL,
	input_hash  TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (scope, key)
);
CREATE INDEX journal_by_thread ON journal(scope, thread_id, created_at);
CREATE INDEX journal_by_resource ON journal(scope, resource_id, created_at);
`,
	// 2: a working-memory state is bound to the resource that owns it (the
	// thread's resource for "thread:<id>", the resource itself for
	// "resource:<id>"), so erasing a resource reaches every state it wrote.
	// Thread-scoped states of threads that do not exist have no owner: they
	// were planted by a write that named a thread nobody had created (or
	// left behind), would be shown to whoever creates the thread, and are
	// deleted with their history.
	`
ALTER TABLE working_memory ADD COLUMN resource_id TEXT NOT NULL DEFAULT '';
ALTER TABLE working_memory_history ADD COLUMN resource_id TEXT NOT NULL DEFAULT '';
UPDATE working_memory SET resource_id = substr(scope, 10) WHERE substr(scope, 1, 9) = 'resource:';
UPDATE working_memory SET resource_id = COALESCE(
	(SELECT t.resource_id FROM threads t WHERE t.id = substr(working_memory.scope, 8)), '')
	WHERE substr(scope, 1, 7) = 'thread:';
DELETE FROM working_memory_history WHERE scope NOT IN (SELECT scope FROM working_memory WHERE resource_id <> '');
DELETE FROM working_memory WHERE resource_id = '';
UPDATE working_memory_history SET resource_id =
	(SELECT w.resource_id FROM working_memory w WHERE w.scope = working_memory_history.scope);
CREATE INDEX working_memory_by_resource ON working_memory(resource_id);
CREATE INDEX working_memory_history_by_resource ON working_memory_history(resource_id);
`,
	// 3: a run id belongs to the one thread (and resource) that first used
	// it, and a tool application is keyed by run, thread, resource and call
	// (journal.ToolKey: the JSON array [run, thread, resource, call]).
	// Existing runs are claimed by their memctx records, then by the
	// thread-scoped working-memory versions their calls wrote; old tool
	// keys "<run>:<call>" of a claimed run (the longest run id that
	// prefixes the key) get the new key, and the others, whose owner
	// cannot be known, are dropped: a replay of such a call runs it again,
	// and working memory's own (run, call) check still applies an update
	// only once.
	`
CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	thread_id   TEXT NOT NULL,
	resource_id TEXT NOT NULL,
	created_at  INTEGER NOT NULL
);
CREATE INDEX runs_by_thread ON runs(thread_id);
CREATE INDEX runs_by_resource ON runs(resource_id);
INSERT OR IGNORE INTO runs (id, thread_id, resource_id, created_at)
	SELECT substr(key, 1, length(key) - 7), thread_id, resource_id, created_at FROM journal
	WHERE scope = 'memctx' AND thread_id <> '' ORDER BY created_at, key;
INSERT OR IGNORE INTO runs (id, thread_id, resource_id, created_at)
	SELECT h.run_id, substr(h.scope, 8), h.resource_id, MIN(h.updated_at) FROM working_memory_history h
	WHERE substr(h.scope, 1, 7) = 'thread:' AND h.run_id <> '' AND h.tool_call_id <> ''
	  AND EXISTS (SELECT 1 FROM journal j WHERE j.scope = 'tool' AND j.key = h.run_id || ':' || h.tool_call_id)
	GROUP BY h.run_id;
UPDATE journal SET
	thread_id = (SELECT r.thread_id FROM runs r WHERE substr(journal.key, 1, length(r.id) + 1) = r.id || ':' ORDER BY length(r.id) DESC LIMIT 1),
	resource_id = (SELECT r.resource_id FROM runs r WHERE substr(journal.key, 1, length(r.id) + 1) = r.id || ':' ORDER BY length(r.id) DESC LIMIT 1),
	key = (SELECT json_array(r.id, r.thread_id, r.resource_id, substr(journal.key, length(r.id) + 2)) FROM runs r
		WHERE substr(journal.key, 1, length(r.id) + 1) = r.id || ':' ORDER BY length(r.id) DESC LIMIT 1)
	WHERE scope = 'tool' AND EXISTS (SELECT 1 FROM runs r WHERE substr(journal.key, 1, length(r.id) + 1) = r.id || ':');
DELETE FROM journal WHERE scope = 'tool' AND substr(key, 1, 2) <> '["';
`,
	// 4: trust follows sources (issue 19): an observation or reflection
	// whose range holds a tool result is untrusted, whatever the observer
	// model cited. A reflection's range is the union of its sources', so
	// the range rule marks it untrusted exactly when a source over that
	// range is.
	`
UPDATE observations SET untrusted = 1
	WHERE untrusted = 0 AND EXISTS (SELECT 1 FROM messages m
		WHERE m.thread_id = observations.thread_id AND m.seq BETWEEN observations.from_seq AND observations.to_seq
		  AND m.role = 'tool');
`,
	// 5: observations record the date span of their sources (issue 19):
	// from_time and to_time are the oldest and newest created_at of the
	// turns in the range (NULL when none is stored any more).
	`
ALTER TABLE observations ADD COLUMN from_time INTEGER;
ALTER TABLE observations ADD COLUMN to_time INTEGER;
UPDATE observations SET
	from_time = (SELECT MIN(m.created_at) FROM messages m
		WHERE m.thread_id = observations.thread_id AND m.seq BETWEEN observations.from_seq AND observations.to_seq),
	to_time = (SELECT MAX(m.created_at) FROM messages m
		WHERE m.thread_id = observations.thread_id AND m.seq BETWEEN observations.from_seq AND observations.to_seq);
`,
	// 6: lifecycle (issue 15). A thread records when it was last active
	// (the engine's clock at its latest stored append, never lowered), its
	// own idle lifetime in milliseconds (0: the configured default, -1:
	// never expires) and the bytes of its messages (full content, name,
	// tool calls and metadata as stored), so quotas need no scan of the
	// messages. Existing threads were last active at their newest message.
	`
ALTER TABLE threads ADD COLUMN last_active INTEGER NOT NULL DEFAULT 0;
ALTER TABLE threads ADD COLUMN idle_ttl INTEGER NOT NULL DEFAULT 0;
ALTER TABLE threads ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE threads SET last_active = updated_at, bytes = COALESCE((SELECT SUM(
		length(CAST(COALESCE(b.content, m.content) AS BLOB)) + length(CAST(m.name AS BLOB))
		+ length(CAST(COALESCE(m.tool_calls, '') AS BLOB)) + length(CAST(m.metadata AS BLOB)))
	FROM messages m LEFT JOIN message_blobs b ON b.message_id = m.id WHERE m.thread_id = threads.id), 0);
CREATE INDEX threads_by_activity ON threads(last_active, resource_id, id);
CREATE INDEX threads_by_resource_activity ON threads(resource_id, last_active, id);
`,
	// 7: the dispatch journal (issue 15). One row per side-effecting tool
	// call an application announced before acting (its intent: the
	// assistant message message_id holds call call_id of run run_id) and,
	// once settled, the tool message that holds its result (result_id; ''
	// while the outcome is unknown). A run belongs to one thread (runs), so
	// (run, call) names a dispatch.
	`
CREATE TABLE dispatches (
	run_id        TEXT NOT NULL,
	call_id       TEXT NOT NULL,
	thread_id     TEXT NOT NULL,
	resource_id   TEXT NOT NULL,
	message_id    TEXT NOT NULL,
	name          TEXT NOT NULL,
	result_id     TEXT NOT NULL DEFAULT '',
	result_digest TEXT NOT NULL DEFAULT '',
	failed        INTEGER NOT NULL DEFAULT 0,
	begun_at      INTEGER NOT NULL,
	settled_at    INTEGER,
	PRIMARY KEY (run_id, call_id)
);
CREATE INDEX dispatches_by_thread ON dispatches(thread_id, message_id);
CREATE INDEX dispatches_by_resource ON dispatches(resource_id);
`,
	// 8: the working-memory configuration is stored with the states it
	// renders and validates (issue 18): one row, the compact JSON of the
	// mode, schema or template, scope, readOnly and maxChars last
	// configured, so every reader of the directory (an application with its
	// Go schema, mnemo context, mnemo wm, the server) uses the same one.
	`
CREATE TABLE working_config (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	config     TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);
`,
	// 9: keyset paging of thread listings. threads_by_order holds the
	// listing order (msgstore's threadOrder: resource, creation time, id;
	// BINARY collation, byte order), so a page after a thread's key reads
	// the rows it answers instead of sorting every thread asked for.
	`
CREATE INDEX threads_by_order ON threads(resource_id, created_at, id);
`,
	// 10: keyset paging of run listings (journal.ListRuns). The memctx
	// records in the listing's order, newest first (created_at, then key,
	// byte order), only those (partial: the journal's other scopes pay
	// nothing): every run listed a page at a time reads about a page of
	// rows, where it sorted every record of the store. A resource's or
	// thread's listing walks journal_by_resource or journal_by_thread by
	// time (ties by key sorted among themselves).
	`
CREATE INDEX journal_memctx_by_time ON journal(created_at, key) WHERE scope = 'memctx';
`,
	// 11: damaged embeddings are recorded as they are written, so that
	// Open need not read every stored vector to find them (it did, at
	// every open: BENCHMARKS.md, "Open: the damaged-embedding scan on
	// SQLite"; mnemo check still reads them all). An
	// embeddings row written by any statement, the engine's or another
	// program's, whose blob does not fit its dims (4 bytes a value; an
	// empty one is hash-384's derived row, msgstore's derived.go), or
	// whose dims differ from those of another row of its embedder, puts
	// its embedder in embeddings_suspect; msgstore.DropDamaged deletes
	// the damaged rows and the mark in one transaction. The other check
	// at Open compares the dims of the embedder's first row with the
	// embedder's own: with the triggers, every row of an embedder has
	// the same dims unless it is marked. Rows stored before are not
	// known: every embedder stored is marked, and the first open scans
	// once. No primary key: salvage copies this table's rows into a
	// database whose triggers may have marked the same embedder.
	`
CREATE TABLE embeddings_suspect (
	embedder TEXT NOT NULL
);
CREATE TRIGGER embeddings_insert_suspect AFTER INSERT ON embeddings
WHEN (length(NEW.vector) != 4 * NEW.dims AND NOT (length(NEW.vector) = 0 AND NEW.embedder = 'hash-384' AND NEW.dims = 384))
	OR NEW.dims != (SELECT dims FROM embeddings WHERE embedder = NEW.embedder AND rowid != NEW.rowid LIMIT 1)
BEGIN
	INSERT INTO embeddings_suspect (embedder) SELECT NEW.embedder
		WHERE NOT EXISTS (SELECT 1 FROM embeddings_suspect WHERE embedder = NEW.embedder);
END;
CREATE TRIGGER embeddings_update_suspect AFTER UPDATE ON embeddings
WHEN (length(NEW.vector) != 4 * NEW.dims AND NOT (length(NEW.vector) = 0 AND NEW.embedder = 'hash-384' AND NEW.dims = 384))
	OR NEW.dims != (SELECT dims FROM embeddings WHERE embedder = NEW.embedder AND rowid != NEW.rowid LIMIT 1)
BEGIN
	INSERT INTO embeddings_suspect (embedder) SELECT NEW.embedder
		WHERE NOT EXISTS (SELECT 1 FROM embeddings_suspect WHERE embedder = NEW.embedder);
END;
INSERT INTO embeddings_suspect (embedder) SELECT DISTINCT embedder FROM embeddings;
`,
	// 12: the outbox by resource. Every search reads its resource's rows
	// that owe indexing (msgstore.Pending: resource_id and op
	// equal, their message_id); without an index it scanned the whole
	// outbox, every resource's rows: 2.7 ms a search of a caught-up
	// resource while another owed 10,000 rows, 38 µs with it
	// (BenchmarkBacklog/others-10000/ids, medians, load 9-13 on 2
	// cores). With message_id in the key the index answers alone (a
	// covering index: no row of the table read).
	`
CREATE INDEX outbox_by_resource ON outbox(resource_id, op, message_id);
`,
	// 13: a working-memory version records the mode it was written in. A
	// state may be replaced by one of the other mode when the
	// configuration changes (working.Memory.Set), so one key's history
	// can hold both, and a replay of a run rebuilds the version it saw in
	// its own mode. Before, a key's versions all had its state's mode.
	`
ALTER TABLE working_memory_history ADD COLUMN mode TEXT NOT NULL DEFAULT '';
UPDATE working_memory_history SET mode = COALESCE(
	(SELECT w.mode FROM working_memory w WHERE w.scope = working_memory_history.scope), '');
`,
	// 14: dispatches.result_digest goes. The dispatch journal (schema 7,
	// e7b76f2) created it and nothing ever wrote or read it: a settlement's
	// outcome is its tool message (result_id), which SettleDispatch
	// compares itself to tell a repeat from a conflict, and erasure deletes
	// with the message. A digest would be a second copy of the result to
	// keep in step, and one that erasure would have to clear (a digest of
	// a short result, "sent", is read back by guessing).
	`
ALTER TABLE dispatches DROP COLUMN result_digest;
`,
	// 15: the memctx records by thread id and resource. A run recorded
	// under a thread id before another resource created a thread of it
	// stays its own resource's, and expires as a run with no stored
	// thread of its resource (journal.GhostRuns); every Expire finds such
	// runs by two seeks of this index per stored thread (the resources
	// below and above the thread's own), not by reading each stored
	// thread's records. Partial: only memctx records are looked up so.
	`
CREATE INDEX journal_by_thread_resource ON journal(thread_id, resource_id) WHERE scope = 'memctx';
`,
	// 16: the observations a recorded tool result returned. An erasure
	// that invalidates observations deletes the recorded results of the
	// recallObservations calls that returned one (journal.ForgetToolResults);
	// it read and decoded every tool result of the resource inside its
	// transaction, under the write gate (10,000 results: 686 ms, 19x the
	// erasure without them; BENCHMARKS.md). journal_tool_obs links each
	// observation id a recorded result's JSON lists (the "id" of each
	// object of its "observations" array, tools.RecalledObservationIDs'
	// shape) to the result's key, so the erasure finds them by index.
	// The trigger writes the links in the statement that records the
	// result, whoever inserts it (the journal, a salvage's copy); the
	// foreign key deletes them with it (erasure, expiry, pruning). A
	// result that is not such JSON links nothing. Existing results are
	// linked here. The output is read as text: SQLite reads a blob given
	// to a JSON function as its binary JSONB.
	`
CREATE TABLE journal_tool_obs (
	obs_id TEXT NOT NULL,
	scope  TEXT NOT NULL CHECK (scope = 'tool'),
	key    TEXT NOT NULL,
	PRIMARY KEY (obs_id, scope, key),
	FOREIGN KEY (scope, key) REFERENCES journal(scope, key) ON DELETE CASCADE
);
CREATE INDEX journal_tool_obs_by_key ON journal_tool_obs(scope, key);
CREATE TRIGGER journal_tool_obs_insert AFTER INSERT ON journal
WHEN NEW.scope = 'tool' AND instr(NEW.output, CAST('"observations"' AS BLOB)) > 0
BEGIN
	INSERT OR IGNORE INTO journal_tool_obs (obs_id, scope, key)
	SELECT json_extract(o.value, '$.id'), NEW.scope, NEW.key
	FROM json_each(CASE WHEN json_valid(CAST(NEW.output AS TEXT))
		AND json_type(CAST(NEW.output AS TEXT), '$.observations') = 'array'
		THEN CAST(NEW.output AS TEXT) ELSE '{"observations":[]}' END, '$.observations') o
	WHERE o.type = 'object' AND json_type(o.value, '$.id') = 'text';
END;
INSERT OR IGNORE INTO journal_tool_obs (obs_id, scope, key)
	SELECT json_extract(o.value, '$.id'), j.scope, j.key
	FROM journal j, json_each(CASE WHEN json_valid(CAST(j.output AS TEXT))
		AND json_type(CAST(j.output AS TEXT), '$.observations') = 'array'
		THEN CAST(j.output AS TEXT) ELSE '{"observations":[]}' END, '$.observations') o
	WHERE j.scope = 'tool' AND instr(j.output, CAST('"observations"' AS BLOB)) > 0
	  AND o.type = 'object' AND json_type(o.value, '$.id') = 'text';
`,
	// 17: the calls made, by thread and call id (msgstore.ToolCall,
	// OpenCall). Finding the call a tool result answers read every
	// assistant message of the thread back to it (json_each on each):
	// for a result answering no call, the whole thread, at every
	// LoadContext that held it (BenchmarkLoadContextOrphan). A row for
	// each call of an assistant message (its tool_calls a JSON array; an
	// element an object whose id is a string), kept by the triggers on
	// messages whoever writes them (append, erasure, expiry, salvage's
	// fixups), filled here from the messages stored. Salvage does not copy
	// it: the triggers rebuild it from the messages it copies.
	`
CREATE TABLE message_calls (
	thread_id TEXT NOT NULL,
	call_id   TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	PRIMARY KEY (thread_id, call_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER message_calls_insert AFTER INSERT ON messages
WHEN NEW.role = 'assistant' AND json_valid(NEW.tool_calls) AND json_type(NEW.tool_calls) = 'array'
BEGIN
	INSERT OR IGNORE INTO message_calls (thread_id, call_id, seq)
		SELECT NEW.thread_id, json_extract(j.value, '$.id'), NEW.seq FROM json_each(NEW.tool_calls) j
		WHERE j.type = 'object' AND json_type(j.value, '$.id') = 'text';
END;
CREATE TRIGGER message_calls_delete AFTER DELETE ON messages
WHEN OLD.role = 'assistant' AND json_valid(OLD.tool_calls) AND json_type(OLD.tool_calls) = 'array'
BEGIN
	DELETE FROM message_calls WHERE thread_id = OLD.thread_id AND seq = OLD.seq AND call_id IN (
		SELECT json_extract(j.value, '$.id') FROM json_each(OLD.tool_calls) j
		WHERE j.type = 'object' AND json_type(j.value, '$.id') = 'text');
END;
CREATE TRIGGER message_calls_update AFTER UPDATE OF thread_id, seq, role, tool_calls ON messages
BEGIN
	DELETE FROM message_calls WHERE thread_id = OLD.thread_id AND seq = OLD.seq AND call_id IN (
		SELECT json_extract(j.value, '$.id') FROM json_each(CASE WHEN OLD.role = 'assistant' AND json_valid(OLD.tool_calls)
			AND json_type(OLD.tool_calls) = 'array' THEN OLD.tool_calls ELSE '[]' END) j
		WHERE j.type = 'object' AND json_type(j.value, '$.id') = 'text');
	INSERT OR IGNORE INTO message_calls (thread_id, call_id, seq)
		SELECT NEW.thread_id, json_extract(j.value, '$.id'), NEW.seq FROM json_each(CASE WHEN NEW.role = 'assistant'
			AND json_valid(NEW.tool_calls) AND json_type(NEW.tool_calls) = 'array' THEN NEW.tool_calls ELSE '[]' END) j
		WHERE j.type = 'object' AND json_type(j.value, '$.id') = 'text';
END;
INSERT OR IGNORE INTO message_calls (thread_id, call_id, seq)
	SELECT m.thread_id, json_extract(j.value, '$.id'), m.seq FROM messages m, json_each(CASE WHEN m.role = 'assistant'
		AND json_valid(m.tool_calls) AND json_type(m.tool_calls) = 'array' THEN m.tool_calls ELSE '[]' END) j
	WHERE m.role = 'assistant' AND m.tool_calls IS NOT NULL AND j.type = 'object' AND json_type(j.value, '$.id') = 'text';
`,
	// 18: the links of journal_tool_obs read what
	// tools.RecalledObservationIDs reads (its doc lists the rules), which
	// migration 16's trigger did not: it took the first of duplicate
	// "observations" keys and the first "id" of an element (Go: every
	// one), any string id (a NUL, bytes that are not UTF-8: ids no
	// observation has, which Postgres cannot store), and read a result up
	// to a NUL byte (Go: not JSON). The trigger is replaced and every
	// result linked again (FuzzRecalledLinks compares the trigger with Go).
	`
DROP TRIGGER journal_tool_obs_insert;
CREATE TRIGGER journal_tool_obs_insert AFTER INSERT ON journal
WHEN NEW.scope = 'tool' AND instr(CAST(NEW.output AS BLOB), CAST('"observations"' AS BLOB)) > 0
BEGIN
	INSERT OR IGNORE INTO journal_tool_obs (obs_id, scope, key)
	SELECT i.atom, NEW.scope, NEW.key
	FROM json_each(CASE WHEN instr(CAST(NEW.output AS BLOB), x'00') = 0 AND json_valid(CAST(NEW.output AS TEXT))
			AND json_type(CAST(NEW.output AS TEXT)) = 'object' THEN CAST(NEW.output AS TEXT) ELSE '{}' END) o,
		json_each(CASE WHEN o.key = 'observations' AND o.type = 'array' THEN o.value ELSE '[]' END) e,
		json_each(CASE WHEN e.type = 'object' THEN e.value ELSE '{}' END) i
	WHERE i.key = 'id' AND i.type = 'text' AND i.atom <> '' AND octet_length(i.atom) = length(i.atom)
		AND NOT i.atom GLOB '*[^ -~]*' AND instr(i.atom, '\') = 0;
END;
DELETE FROM journal_tool_obs;
` + RecalledLinksInsert + `;
`,
	// 19: the index of tool results by call id holds their seq
	// (msgstore.LastResult, FirstResult, ToolResult, and the last result
	// before a call in answeredSQL). Keyed (thread_id, tool_call_id), it
	// gave every result for the id and each was read from the table for
	// its seq: an agent that reuses call_0 each turn read every earlier
	// result at each lookup (BenchmarkAppendReusedCall). Now the last
	// result before a seq, or the first after it, is one seek.
	`
DROP INDEX messages_by_tool_call;
CREATE INDEX messages_by_tool_call ON messages(thread_id, tool_call_id, seq) WHERE tool_call_id <> '';
`,
}

// RecalledLinksInsert writes the links of journal_tool_obs from every
// tool result recorded in journal, as the trigger of migration 18 writes
// them for one (an erasure's lookup, tools.RecalledObservationIDs' rules):
// migration 18 relinks with it, and a repair (engine.Engine.Reindex)
// rebuilds the table with it. Changing it changes what migration 18 did:
// a change to the links is a new migration, which changes the trigger too.
const RecalledLinksInsert = `INSERT OR IGNORE INTO journal_tool_obs (obs_id, scope, key) ` + RecalledLinksSelect

// RecalledLinksSelect selects (obs_id, scope, key), the links of
// journal_tool_obs the tool results recorded in journal make (see
// RecalledLinksInsert; duplicates possible).
const RecalledLinksSelect = `SELECT i.atom AS obs_id, j.scope AS scope, j.key AS key
	FROM journal j,
		json_each(CASE WHEN instr(CAST(j.output AS BLOB), x'00') = 0 AND json_valid(CAST(j.output AS TEXT))
			AND json_type(CAST(j.output AS TEXT)) = 'object' THEN CAST(j.output AS TEXT) ELSE '{}' END) o,
		json_each(CASE WHEN o.key = 'observations' AND o.type = 'array' THEN o.value ELSE '[]' END) e,
		json_each(CASE WHEN e.type = 'object' THEN e.value ELSE '{}' END) i
	WHERE j.scope = 'tool' AND instr(CAST(j.output AS BLOB), CAST('"observations"' AS BLOB)) > 0
		AND i.key = 'id' AND i.type = 'text' AND i.atom <> '' AND octet_length(i.atom) = length(i.atom)
		AND NOT i.atom GLOB '*[^ -~]*' AND instr(i.atom, '\') = 0`

// MigrationCount is the number of migrations this build knows; it equals
// SchemaVersion.
func MigrationCount() int { return len(migrations) }

// RecalledLinksInsertPostgres is RecalledLinksInsert on Postgres, where
// recalled_obs_ids (internal/pgstore's migrations 14 and 16) reads the ids
// of one result: Postgres's migration 16 relinks with it, and a repair
// rebuilds the table with it.
const RecalledLinksInsertPostgres = `INSERT INTO journal_tool_obs (obs_id, scope, key) ` + RecalledLinksSelectPostgres + ` ON CONFLICT DO NOTHING`

// RecalledLinksSelectPostgres is RecalledLinksSelect on Postgres (no
// duplicates).
const RecalledLinksSelectPostgres = `SELECT id AS obs_id, j.scope, j.key FROM journal j, recalled_obs_ids(j.output) id
	WHERE j.scope = 'tool' AND position('"observations"'::bytea IN j.output) > 0`

// MessageCallsSelect selects (thread_id, call_id, seq), the rows of
// message_calls the stored messages make, as the triggers of migration 17
// write them (duplicates possible): a repair rebuilds the table with it.
const MessageCallsSelect = `SELECT m.thread_id, json_extract(j.value, '$.id'), m.seq FROM messages m, json_each(CASE WHEN m.role = 'assistant'
		AND json_valid(m.tool_calls) AND json_type(m.tool_calls) = 'array' THEN m.tool_calls ELSE '[]' END) j
	WHERE m.role = 'assistant' AND m.tool_calls IS NOT NULL AND j.type = 'object' AND json_type(j.value, '$.id') = 'text'`

// MessageCallsSelectPostgres is MessageCallsSelect on Postgres, as the
// triggers of internal/pgstore's migration 18 write them: the column read
// by message_calls_of (a JSON array, else no call), so a tool_calls that
// is not JSON is no call here either (a cast of it failed the whole
// statement: mnemo check --full and mnemo reindex refused the store).
const MessageCallsSelectPostgres = `SELECT m.thread_id, e->>'id', m.seq FROM messages m, jsonb_array_elements(message_calls_of(m.tool_calls)) e
	WHERE m.role = 'assistant' AND m.tool_calls IS NOT NULL AND jsonb_typeof(e->'id') = 'string'`
