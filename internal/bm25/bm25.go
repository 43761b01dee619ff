package bm25

import "math"

// Textbook BM25 constants (Robertson and Zaragoza, "The Probabilistic
// Relevance Framework: BM25 and Beyond", 2009; the values bleve and Lucene
// default to): K1 saturates term frequency, B weighs length normalisation.
const (
	K1 = 1.2
	B  = 0.75
)

// IDF is the non-negative Robertson–Spärck Jones weight used by Lucene,
// ln(1 + (n − df + 0.5)/(df + 0.5)), of a term held by df of n documents.
func IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Norm is the length normalisation K1·(1 − B + B·docLen/avgLen) of a
// document of docLen terms in a corpus whose documents average avgLen
// terms (avgLen > 0).
func Norm(docLen, avgLen float64) float64 {
	return K1 * (1 - B + B*docLen/avgLen)
}

// Weight is one query term's contribution to a document's score,
// idf·tf·(K1 + 1)/(tf + norm), for a term of weight idf (IDF) that occurs
// tf times in a document of normalisation norm (Norm).
func Weight(idf, tf, norm float64) float64 {
	return idf * tf * (K1 + 1) / (tf + norm)
}
