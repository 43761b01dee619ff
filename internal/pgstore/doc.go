// Package pgstore is the foundation of mnemo's Postgres backend (issue 17):
// it opens a pgx connection pool on a Postgres database with pgvector,
// applies the versioned Postgres schema, and keeps the indexes Postgres
// holds in place of the SQLite backend's derived ones (bleve, chromem-go):
// per-embedder HNSW cosine indexes over embeddings, a GIN index over the
// lexical entries' tsvector, and per-resource BM25 statistics.
//
// # Imports
//
// pgstore owns the Postgres schema (schema.go): the tables of the SQLite
// schema (threads, messages, message_blobs, outbox, embeddings,
// working_memory[_history], working_config, observations, journal, runs,
// dispatches) with the same columns and constraints, plus schema_version,
// embedders, lexical_docs, lexical_stats, lexical_df and shared_bounds. It
// writes the tables of the indexes (embedders, lexical_*) and the bounds
// every process applies (shared_bounds: SaveBounds, LoadBounds); the
// statements on the
// others will belong, as on SQLite, to the package that owns each table.
//
// It imports pgx, pgvector-go and internal/store (only so that
// ErrSchemaTooNew is store.ErrSchemaTooNew: one check for both
// backends); never engine, nor the packages above the store seam.
// pgstore/pgtest gives tests a throwaway schema on MNEMO_TEST_POSTGRES.
//
// # Invariants
//
//   - The schema version is the highest row of schema_version. A database
//     whose version is above SchemaVersion is refused with ErrSchemaTooNew
//     and not written to.
//   - All pending migrations run in one transaction holding a
//     transaction-scoped advisory lock keyed by the schema, and the version
//     is read under that lock: concurrent openers (goroutines or processes)
//     apply each migration once; a crash leaves the old schema. A current
//     schema is only read: its version is read first without the lock, in
//     one statement on the pool's first connection (a migration commits
//     whole, so a reader sees a version before or after it), and Open makes
//     no other connection.
//   - A schema that exists is not migrated while sessions of older builds
//     are connected to it (guard.go; Options.MigrateUnderLoad overrides):
//     every connection carries its build's session mark (session.go: a
//     shared advisory lock naming schema and version, application_name
//     mnemo/schema=N), and an older build's unmarked session is known by
//     its empty application_name and its last statement.
//   - A migration locks schema_version before its steps, and every write
//     of every owner through a *sql.DB of OpenDB or DB reads it first
//     (CheckVersion, registered as the database's store.WriteCheck: run
//     by store.RunTx, store.Begin, Stmts.Exec and Bound's ExecContext): a
//     write commits before a migration or sees it and is refused
//     (ErrSchemaMigrated). The one write through the pool itself,
//     EnsureEmbedder's registration, reads it too (checkVersionPgx).
//   - lexical_stats and lexical_df always equal what lexical_docs implies
//     (documents, total terms, documents per term, per resource): statement
//     triggers update them in the statement that changes lexical_docs, and
//     rows that reach zero are deleted, so an erased message leaves no term.
//   - Embeddings and lexical entries reference their message with ON DELETE
//     CASCADE: deleting messages deletes their vectors, lexical entries and
//     share of the statistics in the same transaction.
//   - JSON columns keep the exact text written (TEXT, not JSONB; see
//     schema.go).
//
// # Concurrency
//
// The pool returned by Open is safe for concurrent use, as pgxpool is.
// Writers of lexical entries lock statistics rows in (resource, term)
// order (PutLexical sorts its batch); two transactions that index
// documents of one resource therefore queue on that resource's
// statistics row until the first commits. Writers of different resources
// do not wait for each other.
//
// # Errors
//
// Open returns ErrSchemaTooNew, ErrNoVector and ErrMigrationUnderLoad (an
// *UnderLoadError); CheckVersion returns ErrSchemaMigrated; EnsureEmbedder returns
// ErrEmbedderDims; malformed arguments (PutLexical's documents, an
// embedder's name or dimensions, Nearest's vector, a DSN's
// tcp_user_timeout) give ErrInvalid naming the field.
// The sentinels the engine re-exports (errors.go) read "engine: …", and
// a failed open says "open HOST:PORT/DB: …" with no package: the engine,
// Open's one caller outside tests, is what a user sees them through.
// Other errors wrap pgx's (a *pgconn.PgError carries SQLSTATE; callers
// retry 40001 and 40P01).
//
// # Design: the store seam on two backends (what is done, what remains)
//
// Issue 13 gives the SQLite backend one owner per table: internal/store
// (open, migrations, statement cache), internal/msgstore (threads,
// messages, blobs, outbox, embeddings) and journal, working and observe
// taking the caller's transaction. Postgres implements the same seam.
//
// Done: the pattern, end to end on one owner (the journal).
//
//  1. One database/sql seam, two drivers. The Postgres side goes through
//     pgx's database/sql driver: OpenDB migrates like Open and returns a
//     *sql.DB (pgx/v5/stdlib, pgvector's types registered per
//     connection). The owners keep *sql.DB and their statements; only the
//     SQL text differs, decided by a dialect (store.Dialect).
//     store.DialectOf(db) reads it from db's driver (pgx's stdlib driver
//     is Postgres, any other SQLite), so there is no setting to get wrong,
//     and internal/store does not link pgx.
//
//     Statements are written once, in SQLite's text with ? or ?NNN.
//     store.Stmts rebinds them to $n when it prepares them (cached by the
//     SQLite text: no cost per call). Functions that run on the caller's
//     transaction take a store.Conn and wrap it in store.Bound, which is
//     the value itself on SQLite (the exact text, no cost) and on Postgres
//     rebinds each statement (one scan of its text, about 0.5 µs for a
//     150-byte statement: BenchmarkRebind).
//     Rebind numbers placeholders as SQLite binds them (?NNN is argument
//     NNN, a bare ? the next after the highest) and skips literals, quoted
//     identifiers and comments. sqlx's Rebind, the usual library answer,
//     rewrites every ? blindly: "?1" becomes "$11" and a ? inside a string
//     literal becomes a parameter, so it does not fit.
//
//     The few statements whose words differ carry both texts and pick one
//     with Dialect.Text: INSERT OR IGNORE becomes INSERT … ON CONFLICT DO
//     NOTHING, INSERT OR REPLACE an ON CONFLICT (key) DO UPDATE that
//     rewrites every column, the empty blob literal an empty bytea.
//
//     A transaction knows its dialect when begun with store.Begin (a
//     *store.Tx embedding the *sql.Tx); a bare *sql.Tx is taken for
//     SQLite, which is what the engine passes until it is wired.
//     Constraint errors are recognised on both without importing pgx:
//     SQLite's extended code (a Code() int method) or Postgres's SQLSTATE
//     (SQLState() string, 23505 for unique_violation), as the journal's
//     isUniqueViolation does.
//
//     The alternative, a small Exec/Query interface satisfied by pgx.Tx,
//     would change every owner's signatures and every caller's, and give
//     up database/sql's statement cache; pgvector-go works with both.
//
//  2. The journal runs on both: every function (steps, tool applications,
//     memctx records, runs, dispatches, tombstones, erasure's scrub and
//     entomb, retention) passes one conformance suite from a table of
//     backends (journal/backend_test.go: SQLite in t.TempDir(), Postgres
//     on a pgtest schema, skipped with a message when MNEMO_TEST_POSTGRES
//     is unset), with the assertions the SQLite tests had, plus
//     TestEntombRecords, TestForgetReplaceDangling and
//     TestRacingConnections (two pools of one database race Apply,
//     ClaimRun and PutMemCtx: one recorded application returned to both,
//     one claim, one memctx record and ErrRunExists for the other). On
//     Postgres a tool application also runs once across processes
//     (TestApplyOnceAcrossPools): the journal holds a session advisory
//     lock on the key while fn runs. Memoized steps and SQLite keep the
//     weaker cross-process promise: the first record committed wins, fn
//     may run in each racer; the observer's calls are memoized steps run
//     under observe's own session lock per thread (one process observes a
//     thread at a time).
//
//  3. The other owners followed the same pattern, each with its tests on a
//     table of backends and races across two pools: working (its swap in a
//     *store.Tx, optimistic versions: TestRacingWriters), observe (a
//     per-thread advisory transaction lock before storing an observation
//     or reflection and in Invalidate: TestRacingObservers,
//     TestInvalidateAcrossConnections), internal/msgstore (ThreadHead
//     locks the thread for gap-free seqs, Appender.Lookup the message id,
//     ClaimOutbox leases rows with FOR UPDATE SKIP LOCKED, tool-call
//     pairing by jsonb containment: TestConcurrentAppends,
//     TestRacingIdempotentAppend, TestClaimOutbox), and tools' tests. The
//     Postgres-only locking lives in the owner that needs it; on SQLite
//     the write transaction (BEGIN IMMEDIATE) already serialises writers.
//
// Next, in this order:
//
//  4. Done: appends write the lexical entry in the append transaction
//     (PutLexicalTx on the engine's database/sql transaction, one INSERT
//     per append, terms from recall.Analyze); the outbox owes only
//     embeddings (op embed, a model call), drained by every engine process
//     through ClaimOutbox leases, the vectors stored after EnsureEmbedder.
//     Open indexes messages stored without an entry (Unindexed); Check
//     compares entries and embeddings with the messages (LexicalIDs).
//  5. Done: store.RunTx hands fn a *store.Tx (the dialect from DialectOf,
//     and a transaction Postgres aborts with 40001 or 40P01 run again), so
//     everything the engine passes on speaks its database's dialect;
//     msgstore's transactional methods take the *store.Tx.
//     engine.Config.Postgres opens the pool with Open and the owners' *sql.DB
//     from the same pool (stdlib.OpenDBFromPool); the engine keeps no SQL of
//     its own. store.Stmts.InTx prepares an uncached statement on the
//     transaction (a prepare on the pool would wait for a second connection
//     while every connection of the bounded pool may be held by such a
//     transaction: TestInTxNeedsNoSecondConnection).
//  6. Done: internal/pgrecall answers recall.Query from these tables with
//     Index.Search's semantics, stateless. recall's stages after the
//     channels (merge, cross-scoring, fusion, session evidence and topic,
//     topK, range expansion) run over a recall.Corpus, so both backends
//     rank with one implementation (recall.Finish). Lexical: the matches
//     of the GIN index (and of the query's dates) ranked by their own BM25
//     in SQL, the top pool + excluded re-scored exactly with internal/bm25
//     from Stats, with the context rule, date terms (a message's
//     relative date in lexical_docs.ref_from, ref_to, ref_months; schema
//     version 4), answer types
//     (lexical_docs.atypes, counted in lexical_stats; schema version 3)
//     and compound bonus as recall's. Vector: Nearest (HNSW, iterative scan) re-ranked by
//     recall's cosine. Filters: translated to SQL (metadata through
//     (metadata::jsonb)); at most 2,048 allowed messages restrict both
//     channels to them and their neighbours, else the channels widen.
//     Measured: TestParityWithSQLiteBackend (random queries over every
//     option: the same hits, ranks and scores as recall.Index),
//     TestLoCoMoRecall (LoCoMo dev, hash-384 and use-lite: the same
//     recall_any@5/@10 and top 10s with HNSW and exact).
//  7. Erasure deletes rows in one transaction (vectors, lexical entries
//     and statistics follow by cascade and trigger; done: the engine's
//     TestPostgresErasure finds no erased word nor term in any table
//     afterwards), then an operator command vacuums the touched tables; docs/postgres.md states what VACUUM,
//     WAL, backups and replicas keep. Measured on the test server
//     (pageinspect's get_raw_page): a deleted row's text stays in its heap
//     page after DELETE and after a plain VACUUM, which frees the space
//     without zeroing it; it went when later inserts reused the space, and
//     VACUUM FULL writes the table to a new file (the old one is unlinked,
//     not wiped). SQLite's secure_delete has no Postgres equivalent.
//  8. The engine's conformance suite runs its behaviour tests over both
//     backends the way the journal's does, using pgtest.DSN for a schema
//     per test.
package pgstore
