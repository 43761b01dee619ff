// Package recall is mnemo's hybrid retrieval: a lexical channel (bleve,
// BM25, Unicode folding then English analysis with stemming), a vector channel (an
// in-memory index per resource, fed from embeddings stored in SQLite, with
// chromem-go's exact scan as its reference),
// embedders (the offline hash-384 and an OpenAI-compatible adapter), JSON
// operator filters, fusion of the two channels, topK and threshold, scope and
// message-range expansion (DESIGN.md, read path step 2).
//
// Both indexes are derived from the SQLite authority: they may be deleted and
// rebuilt at any time. The engine feeds them through its outbox.
//
// A search (Index.Search) runs in four steps:
//
//  1. Lexical channel: the exact top Tuning.CandidatePool messages by a
//     textbook BM25 over the resource's exact statistics (bleve's average
//     field length is a crude dictionary-size estimate), plus a bonus for
//     compound identifiers found verbatim ("ZEPHYR-QUOTE"), scored from the
//     shard's in-memory inverted index of the analysed terms (postings.go,
//     lexical_postings.go; the same analyser as bleve's: AnalyzerName, Fold
//     then the "en" analyzer). bleve (scorch, BM25) holds the same terms
//     on disk; its search, a pool by its own BM25 re-scored, answers only
//     with Tuning.BleveMatches or Tuning.BleveScores.
//  2. Vector channel: the query's embedding against the resource's
//     vectors; candidates under Options.Threshold (cosine) are not vector
//     candidates. A resource of up to 2,048 vectors is scored exactly; a
//     larger one through its int8 index (vecindex.go: an AVX2 scan of int8
//     codes, then the exact cosine of a pool of 4 × the candidates asked,
//     recall@10 1.0 against the exact scan in the tests and `mnemo bench`).
//     A sparse query (hash-384) sums only its non-zero columns of a
//     column-major copy of the codes (veccols.go: the same integer dots),
//     and the re-score skips the pool members a proven bound on the codes'
//     error rules out (vecrescore.go: the same top n). A row whose values
//     are hash-384's division of half-integers keeps those integers as its
//     codes (vecexact.go: checked bit for bit when stored), and its exact
//     cosine is computed from them, without reading its float32 values
//     from a snapshot file.
//     chromem-go is the exact reference: with Tuning.ExactVectors each
//     resource also gets a chromem-go collection and the channel scans it
//     (tests and `mnemo bench --exactness` compare the two); serving builds
//     none. The vectors (float32 and int8) and the messages' contents and
//     term ids live in slabs outside the Go heap (slab.go, arena.go), which
//     halved the serving memory of a 100k-message resource. A large
//     resource's shard is also kept as a snapshot file (snapshot.go), so
//     that its first use reads one file instead of every stored row.
//  3. Fusion (hybrid mode): every candidate gets both scores and the
//     weighted fusion (fusion.go: standardised scores, weight
//     DefaultVectorWeight) or RRF ranks them; in a resource-wide search
//     each is raised by its session's evidence, the best other candidate
//     of its thread, and by its session's topic, the query's cosine with
//     the thread's mean vector (session.go, topic.go); in any scope a
//     candidate whose speaker the query names is raised by
//     Tuning.SpeakerWeight standard deviations (speaker.go), and one
//     that carries a date the query names (said then, or about then) by
//     Tuning.DateWeight (datefocus.go); topK hits are kept.
//  4. Range expansion (range.go) adds each hit's neighbours by seq.
//
// SearchReranked (rerank.go) adds an optional fifth step between 3 and 4,
// off unless the caller configures it: the fused order's best candidates
// are scored again by a Reranker (rerank_openai.go: a cross-encoder's
// /rerank or a chat model behind an OpenAI-compatible endpoint) outside
// the shard's lock, within a latency budget after which the fused order
// stands; Retrieval.Rerank records that it ran. Reranked runs the same
// stage over any RerankBackend (the Postgres searcher's SearchReranked).
//
// In both channels a turn is also matched through the turns before and
// after it, at Tuning.ContextWeight of their score (context.go: a reply is
// about what was asked, and a turn is what its reply talks about), and the lexical channel scores each absolute date the
// query names ("in May 2022"), and each relative date it holds
// ("yesterday") resolved against the time it is asked (Query.At), as a
// BM25 term carried by the messages created then or whose own relative
// date points there (dates.go, reldates.go).
//
// # Imports
//
// Owns the derived indexes (the bleve directory, the in-memory vector
// shards and their snapshot files), never a table: it reads stored messages through Source (and SnapshotSource) and
// keeps the vectors its Indexer computes (indexer.go, the embed-and-index
// pipeline) through VectorStore, both of which internal/msgstore
// implements. It imports no storage package (internal/store,
// internal/msgstore, journal) and never engine; of internal/ it uses
// internal/bm25 (the BM25 formula, shared with observe). recall/uselite
// builds on it.
//
// # Invariants
//
//   - A search never returns a message of another resource than the query's;
//     with scope "thread" it returns only messages of the query's thread. A
//     filter narrows, it never widens the scope.
//   - Filters apply before topK: the result is the true topK among the
//     matching messages of the scope (both channels widen their candidate
//     pool until topK matching candidates are found or the scope is
//     exhausted).
//   - Range expansion adds, for each hit, the messages of the hit's own thread
//     whose seq lies in [seq−Before, seq+After], nothing else; the expanded
//     set is deduplicated and ordered by thread and seq.
//   - Both channels see text through Fold (NFKC, case folding, accent
//     folding) at index and at query time: spellings that differ only in
//     normal form, width, case or accents find each other.
//   - An on-disk lexical index built with another analyzer is never used
//     (OpenLexical returns ErrStaleIndex).
//   - The hash-384 vector of a text is bit-for-bit that of
//     ../shared/data/README.md (embed_hash.go, TestHashTestVectors);
//     HashEmbedder embeds Fold(text), which is the same for ASCII text.
//   - A stored embedding of the wrong length, or with a NaN or ±Inf
//     value, never fails a load or a search: the message is searched
//     lexically only, Config.Damaged names it (to be embedded again) and
//     the vector status reads "degraded".
//   - chromem-go's persistence is never used; the vector indexes (and the
//     collections of Tuning.ExactVectors) live in memory and are reloaded
//     from SQLite on a resource's first use, or, for a resource of at least
//     Tuning.SnapshotMin messages, from its shard snapshot under
//     Config.SnapshotDir (snapshot.go), brought up to date from the Source
//     before it serves; a snapshot that is damaged, of another format,
//     resource, embedder, analyser or answer-type rules is deleted, never
//     used (its vector part is verified in the background: a failure
//     unloads the shard, snapshot_verify.go). Removing a message zeroes
//     its float32 row, its int8 code (and its column copy), its content
//     and its term ids in the slabs (no copy stays in the index's
//     memory), detaches its shard from the snapshot file it was mapped
//     from, and deletes the snapshot files of its resource before Remove
//     returns; unloading a resource unmaps them.
//   - A snapshot file changed in place while a shard maps it (truncated,
//     copied over) is never read again once its size or modification time
//     differ from when it was mapped, and a truncation during a search is
//     a recovered fault, not a crash: the shard is dropped (its files
//     deleted, Config.SnapshotDropped told) and built again from the
//     Source (snapshot_fault.go).
//
// # Concurrency
//
// Index, Lexical and the embedders are safe for concurrent use by multiple
// goroutines. Close must be called once, after every other call returned.
// Indexer.Update writes its lexical batch on a goroutine of its own while
// it embeds and stores the vectors, and returns only once the batch is
// persisted (whatever else failed): no write of it outlives the call.
//
// # Errors
//
// Invalid filters return *FilterError (errors.Is ErrInvalidFilter); invalid
// options ErrInvalidOptions; a corrupt lexical directory ErrCorrupt; embedder
// failures ErrEmbed; re-ranker failures ErrRerank (the re-rank stage
// turns them into the fused order and a status, never a failed search);
// vectors of the wrong length ErrDimension. Every error
// text starts with "recall:".
package recall
