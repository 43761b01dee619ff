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
// embedders, lexical_docs, lexical_stats and lexical_df. It writes the
// tables of the indexes (embedders, lexical_*); the statements on the
// others will belong, as on SQLite, to the package that owns each table.
//
// It imports pgx, pgvector-go and internal/store (only so that
// ErrSchemaTooNew wraps store.ErrSchemaTooNew: one check for both
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
//     schema is only read.
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
// Open returns ErrSchemaTooNew and ErrNoVector; EnsureEmbedder returns
// ErrEmbedderDims; malformed arguments (PutLexical's documents, an
// embedder's name or dimensions, Nearest's vector) give ErrInvalid naming
// the field.
// Other errors wrap pgx's (a *pgconn.PgError carries SQLSTATE; callers
// retry 40001 and 40P01).
//
// # Design: how the store seam will route here (what remains of issue 17)
//
// Issue 13 gives the SQLite backend one owner per table: internal/store
// (open, migrations, statement cache), internal/msgstore (threads,
// messages, blobs, outbox, embeddings) and journal, working and observe
// taking the caller's *sql.Tx. Postgres will implement the same seam:
//
//  1. The seam's transaction type must stop being *sql.Tx. Either each
//     owner's functions take a small interface (Exec/Query/QueryRow with
//     ctx, satisfied by an adapter over *sql.Tx and by pgx.Tx), or the
//     Postgres backend goes through pgx's database/sql driver (pgx/v5/stdlib)
//     so *sql.Tx stays and only the SQL text differs per backend. The second
//     is the smaller change; pgvector-go's types work with both.
//  2. Each owner gets its Postgres statements beside its SQLite ones
//     (placeholders $n, ON CONFLICT instead of INSERT OR IGNORE, BOOLEAN
//     flags, RETURNING for identities), chosen by a dialect value the store
//     carries; engine.Config gains the DSN (--db postgres://…, MNEMO_DB).
//  3. Appends take a row lock on the thread (SELECT … FOR UPDATE on
//     threads) for gap-free seqs across processes, and write the lexical
//     entry (PutLexical, terms from recall's analyser) in the append
//     transaction; embeddings stay behind the outbox (a model call), drained
//     with FOR UPDATE SKIP LOCKED so several processes share the queue.
//  4. recall gets a Postgres searcher: lexical candidates from
//     LexicalCandidates (tsv @@ TermsQuery(terms)::tsquery within the
//     resource), scored with internal/bm25 from Stats — equal to recall's
//     scores on the same corpus (TestLexicalParityWithSQLiteBackend) — with
//     the pool bounded for large resources, the compound bonus and date
//     terms (counted over lexical_docs(resource_id, created_at)) added as
//     recall does; vector candidates from Nearest (the embedder's HNSW
//     index under an iterative scan, so the resource predicate does not
//     starve the top k), with recall's filters compiled to SQL (metadata
//     through (metadata::jsonb)) and HNSW's approximation measured against
//     the SQLite backend's exact search on LoCoMo.
//  5. Erasure deletes rows in one transaction (vectors, lexical entries
//     and statistics follow by cascade and trigger), then an operator
//     command vacuums the touched tables; the README states what VACUUM,
//     WAL, backups and replicas keep. Measured on the test server
//     (pageinspect's get_raw_page): a deleted row's text stays in its heap
//     page after DELETE and after a plain VACUUM, which frees the space
//     without zeroing it; it went when later inserts reused the space, and
//     VACUUM FULL writes the table to a new file (the old one is unlinked,
//     not wiped). SQLite's secure_delete has no Postgres equivalent.
//  6. The conformance suite runs engine tests over both backends, using
//     pgtest.DSN for a schema per test.
package pgstore
