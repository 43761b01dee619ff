// Package msgstore is mnemo's message store: the one owner of the tables
// threads, messages, message_blobs, outbox, embeddings and
// embeddings_suspect (schema in
// internal/store; on Postgres in internal/pgstore). Every statement on those tables is here; the engine
// orchestrates through Store's methods and never writes their SQL itself.
//
// A Store reads through one statement cache (store.Stmts) and writes inside
// the caller's transaction (methods taking a *store.Tx, as store.RunTx and
// store.Begin give), so that an Append, an
// erasure or a settlement is one transaction across the packages that own
// the tables it touches (journal, working, observe own theirs).
//
// One Store runs on SQLite (internal/store's Open) and on Postgres
// (internal/pgstore's OpenDB, pgx's database/sql driver), in the dialect
// of the *sql.DB it is given (store.DialectOf). Statements are written
// once in SQLite's text, which SQLite runs as written; Postgres runs them
// rebound to $n placeholders (store.Dialect.Rebind, once per cached
// statement). The statements whose words differ carry a Postgres text
// (store.Dialect.Text): MessagesByID takes its ids as one text[] (= ANY)
// where SQLite takes one JSON array (json_each), without SQLite's
// +resource_id plan hint; scalar max is GREATEST, a text's bytes
// octet_length, the embeddings upsert ON CONFLICT, and INSERT … SELECT
// casts its parameters. No statement reads tool_calls as JSON: the calls
// are looked up in message_calls, which triggers keep on both backends.
// embeddings.vector is a little-endian float32 blob on SQLite and a
// pgvector vector on Postgres (pgvector-go), which pgstore.Nearest
// searches through the embedder's HNSW index. On SQLite a hash-384 row
// keeps an empty blob and its vector is computed from the message when
// read (derived.go).
//
// It implements recall.Source (a resource's messages and stored embeddings,
// loaded on the resource's first search) and recall.VectorStore (the
// vectors recall's Indexer computes).
//
// # Imports
//
// msgstore may import internal/store, pgvector-go (the Postgres vector
// type) and the packages whose interfaces it implements or whose documents
// it builds (recall); never engine. Its tests open Postgres through
// internal/pgstore and pgstore/pgtest.
//
// # Invariants
//
//   - Row types carry stored values as stored: times in UTC (milliseconds in
//     the database), tool calls and metadata as the JSON text stored; the
//     engine decodes them into its public types.
//   - A read by id never crosses resources when a resource is given
//     (MessagesByID).
//   - A thread's seqs are unique and gap-free however many connections or
//     processes append to it: on SQLite every write transaction is BEGIN
//     IMMEDIATE (one writer); on Postgres ThreadHead locks the thread for
//     the rest of the append's transaction (see Concurrency).
//   - An append by message id is idempotent across connections: on
//     Postgres Appender.Lookup locks the id first, so the second of two
//     racing appends finds the first's row instead of a constraint error.
//
// # Concurrency
//
// A Store is safe for concurrent use, as database/sql is.
//
// On Postgres the append path takes transaction-scoped advisory locks
// (pg_advisory_xact_lock(class, hashtext(schema/id))): ThreadHead on the
// thread id, then selects the row FOR UPDATE (the lock also covers a
// thread not yet created); Appender.Lookup on each message id. Appends of
// one thread therefore run one after the other; appends of different
// threads only wait for each other on a shared message id. Two appends
// that share ids in opposite orders can deadlock; Postgres aborts one
// (SQLSTATE 40P01) and the caller retries. Callers run the append path
// in READ COMMITTED (Postgres's default), where each statement after a
// lock sees what the previous holder committed.
//
// An erasure on Postgres takes the same thread locks, in byte order of
// the thread ids (ErasedByID, ErasedOfThread and ErasedOfResource lock the
// threads they read; ShrinkThread and DeleteThread lock theirs again, a
// no-op when held): an append to an erased thread from another process
// waits for the erasure, then finds the thread gone (and starts it anew)
// or its counters recounted with every message.
//
// Outbox drainers: DueOutbox only reads, so two drainers may apply one row
// twice (harmless: index and embedding writes are upserts, deleting a
// deleted row is a no-op). ClaimOutbox leases rows to one drainer (FOR
// UPDATE SKIP LOCKED on Postgres), so drainers in several processes split
// the queue.
//
// # Errors
//
// Lookups of one row return ErrNotFound (wrapped) when it is absent; other
// errors wrap the driver's (SQLite's, or pgx's *pgconn.PgError with its
// SQLSTATE) and name the table and the id asked for.
package msgstore
