// Package bm25 is mnemo's one BM25 formula: recall's exact lexical
// scoring (its textbook re-scoring of bleve's matches and its date terms)
// and observe's observation search both score with it, so the two rank by
// the same arithmetic.
//
// The constants are the textbook values (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009; the values
// bleve and Lucene default to) and the idf is Lucene's non-negative
// Robertson–Spärck Jones weight, ln(1 + (N − df + 0.5)/(df + 0.5)). A
// document's score for a query is the sum over the query's distinct terms
// it holds of Weight(IDF(N, df), tf, Norm(docLen, avgLen)).
//
// The corpus statistics (N, document frequencies, average length) stay
// with the callers: recall keeps them per resource, by term id; observe
// computes them per search over a scope's live observations.
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so recall and observe can both
// use it without importing each other.
//
// # Invariants
//
//   - IDF, Norm and Weight are pure functions, evaluated in one fixed order
//     of float64 operations: equal input gives bit-identical scores in
//     every package (TestSameArithmetic pins them to the expressions recall
//     and observe used before they shared this package).
//   - IDF is positive for every df in [0, N].
//
// # Concurrency
//
// Everything here is safe for concurrent use.
//
// # Errors
//
// None.
package bm25
