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
//     embedded unless the mode is lexical. A filter is translated to SQL
//     (filtersql.go: recall.Filter.Tree, MongoDB semantics over the
//     columns and (metadata::jsonb)); when it allows at most 2,048
//     messages, both channels search only those and the turns around
//     them, as recall's pre-filtering does; when it allows more, both
//     channels rank the same set in SQL (below). A broad filter, allowing
//     more than an eighth of the resource's messages (broadShare), is not
//     read: both channels rank the resource by their own index, as
//     without a filter, checking its SQL condition on their candidates
//     and widening until pool of them pass. Filter.Match still judges
//     every candidate.
//  2. Lexical channel: the query's distinct analysed terms
//     (recall.Analyze, the analyser the SQLite backend indexes with),
//     their statistics (pgstore.Stats, plus the messages in each date the
//     query names), the answer types it asks for (recall.AskedTypes, their
//     idf from lexical_stats' per-type counts); the messages of the scope
//     that hold a term (GIN index over lexical_docs.tsv), fall in a query
//     date (created in it, or their relative date, lexical_docs.ref_from
//     and ref_to, recall.RelativeDate, overlapping it: tf 1 or 2, as
//     recall.DatePeriod.TF) or carry an asked type (lexical_docs.atypes, tagged by
//     recall.AnswerBits when written; a partial index per type), ranked by their own
//     BM25 in SQL, the top pool + excluded of them (under a filter, among
//     the messages it allows and the turns around them, read once a
//     search; past 2,048 allowed, up to the pool-th allowed in one
//     statement, allowedMatchesSQL; under a broad filter, among the
//     resource's top 4 × pool, broadMatchesSQL; widened ×4 while
//     Filter.Match allows fewer than pool) and the turns they lift by the turn-context rule, each
//     scored exactly with internal/bm25: the same candidates and scores as
//     recall's exact in-memory enumeration.
//  3. Vector channel: the nearest vectors of the resource
//     (pgstore.Nearest: the embedder's HNSW index under an iterative scan,
//     exact on small tables), of the thread or, under a filter, of the
//     messages it allows and the turns around them (an exact scan of
//     their vectors by key, filtering before its LIMIT,
//     universeRankSQL; under a broad filter, the resource's nearest by
//     the HNSW index up to the pool-th allowed, or that exact scan when
//     the index returns fewer than it was asked for), re-ranked by recall's cosine, widened ×4 while a
//     filter or exclusion leaves fewer than the candidate pool, then
//     recall's context rule.
//  4. recall.Finish ranks the candidates over the search's view of the
//     resource (a recall.Corpus): the code Index.Search ranks with.
//
// Searcher.SearchReranked adds recall's optional re-rank stage with the
// code Index.SearchReranked runs (recall.Reranked over the Searcher): the
// fused top Depth without a range, the re-ranker within its budget (the
// fused order stands when it fails or the budget runs out), the best TopK,
// then the message range; no connection is held while the re-ranker runs.
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
//     the true top candidates among the allowed messages (searching only
//     them and their neighbours, or widening until pool allowed
//     candidates or the scope is exhausted; under a filter neither
//     channel widens through the resource, and both rank only the allowed
//     messages and the turns around them, exactly, unless it is broad:
//     then both widen through the resource, the lexical channel exactly,
//     the vector one by the HNSW index, approximate as without a filter,
//     and exactly when the index returns fewer than it was asked for).
//   - A filter's SQL form selects at least what Filter.Match allows (a
//     comparison it cannot express exactly is TRUE, and never negated).
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
