// Package pgrecall is recall on the Postgres backend (issue 17): it
// answers recall.Query from the tables Postgres holds (messages,
// lexical_docs and their BM25 statistics, embeddings with their HNSW
// index), with the semantics of recall's Index.Search: the same options,
// errors, scopes, filters before topK, modes, fusion, session evidence,
// turn-context rule, compound bonus, date terms, message-range expansion
// and Retrieval statuses.
//
// A search (Searcher.Search):
//
//  1. The query is checked and resolved by recall (Query.Prepare) and
//     embedded unless the mode is lexical.
//  2. Lexical channel: the query's distinct analysed terms
//     (recall.Analyze, the analyser the SQLite backend indexes with),
//     their statistics (pgstore.Stats, plus the messages in each date the
//     query names), every message of the scope that holds a term (GIN
//     index over lexical_docs.tsv) or falls in a query date, and the turns
//     they lift by the turn-context rule; each scored exactly with
//     internal/bm25, as recall's in-memory enumeration scores them.
//  3. Vector channel: the nearest vectors of the resource
//     (pgstore.Nearest: the embedder's HNSW index under an iterative scan,
//     exact on small tables) or of the thread (an exact scan), re-ranked by
//     recall's cosine, widened ×4 while a filter or exclusion leaves fewer
//     than the candidate pool, then recall's context rule.
//  4. recall.Finish ranks the candidates over the search's view of the
//     resource (a recall.Corpus): the code Index.Search ranks with.
//
// # Imports
//
// It imports recall (the query, options, filters and the ranking
// stages), internal/bm25 (the one BM25 formula), internal/pgstore (the
// Postgres schema's lexical statistics, embedders and Nearest) and pgx;
// never engine, msgstore or the SQLite packages. It only reads.
//
// # Invariants
//
//   - Stateless: nothing is kept per resource between searches (only the
//     embedder's registration per Searcher), so any number of processes
//     search one database while others write it.
//   - A search never returns a message of another resource: every read
//     names the query's resource.
//   - Filters and the exclusion apply before topK: each channel returns
//     the true top candidates among the allowed messages (the lexical
//     channel scores every match; the vector channel widens until pool
//     allowed candidates or the scope is exhausted).
//
// # Concurrency
//
// A Searcher is safe for concurrent use; each search reads through the
// pool.
//
// # Errors
//
// New returns ErrConfig. Search returns recall's ErrInvalidQuery,
// ErrInvalidOptions and *recall.FilterError for a bad query; a channel
// whose reads fail reads "unavailable: …" in Result.Retrieval and only
// both failing fail the search. Errors wrap pgx's.
package pgrecall
