// Package msgstore is mnemo's message store: the one owner of the tables
// threads, messages, message_blobs, outbox and embeddings (schema in
// internal/store). Every statement on those tables is here; the engine
// orchestrates through Store's methods and never writes their SQL itself.
//
// A Store reads through one statement cache (store.Stmts) and writes inside
// the caller's transaction (methods taking a *sql.Tx), so that an Append, an
// erasure or a settlement is one transaction across the packages that own
// the tables it touches (journal, working, observe own theirs).
//
// It implements recall.Source (a resource's messages and stored embeddings,
// loaded on the resource's first search) and recall.VectorStore (the
// vectors recall's Indexer computes).
//
// # Imports
//
// msgstore may import internal/store and the packages whose interfaces it
// implements or whose documents it builds (recall); never engine.
//
// # Invariants
//
//   - Row types carry stored values as stored: times in UTC (milliseconds in
//     the database), tool calls and metadata as the JSON text stored; the
//     engine decodes them into its public types.
//   - A read by id never crosses resources when a resource is given
//     (MessagesByID).
//
// # Concurrency
//
// A Store is safe for concurrent use, as database/sql is.
//
// # Errors
//
// Lookups of one row return ErrNotFound (wrapped) when it is absent; other
// errors wrap SQLite's and name the table and the id asked for.
package msgstore
