package observe

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// DefaultSearchTopK is how many hits Search returns when TopK is 0.
const DefaultSearchTopK = 5

// SearchQuery asks Search for the live observations that best match Text.
type SearchQuery struct {
	Text   string // the query; tokenised like the observations
	Filter Filter // the scope: a thread or a resource (All is ignored: live only)
	TopK   int    // most hits returned; 0 means DefaultSearchTopK
}

// SearchHit is one matching observation with its BM25 score (> 0).
type SearchHit struct {
	Observation
	// Score is the BM25 score (> 0); higher ranks first.
	Score float64 `json:"score"`
}

// Search ranks the live observations and reflections of the scope by BM25
// (the textbook k1 = 1.2 and b = 0.75 of Robertson &
// Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009,
// with Lucene's non-negative idf, ln(1 + (N − df + 0.5)/(df + 0.5)); the
// formula recall's lexical channel uses) over their content and returns the best TopK with a positive score, best
// first (ties by id). Scoring runs over the scope's live rows at query time:
// a scope holds tens to hundreds of observations, so no derived index is
// kept, and retired, invalidated or erased observations can never be found.
// Tokens are maximal runs of Unicode letters and digits, lower-cased; no
// stemming, no stop words. db is SQLite or Postgres.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; the recallObservations tool (engine.Engine.Tools)
// searches them.
func Search(ctx context.Context, db *sql.DB, q SearchQuery) ([]SearchHit, error) {
	q.Filter.All = false
	obs, err := List(ctx, db, q.Filter)
	if err != nil {
		return nil, err
	}
	if q.TopK <= 0 {
		q.TopK = DefaultSearchTopK
	}
	qterms := distinctTerms(Tokens(q.Text))
	if len(qterms) == 0 || len(obs) == 0 {
		return nil, nil
	}
	docs := make([][]string, len(obs))
	df := map[string]int{}
	total := 0
	for i, o := range obs {
		docs[i] = Tokens(o.Content)
		total += len(docs[i])
		for _, t := range distinctTerms(docs[i]) {
			df[t]++
		}
	}
	n := float64(len(obs))
	avg := float64(total) / n
	var hits []SearchHit
	for i, doc := range docs {
		tf := map[string]int{}
		for _, t := range doc {
			tf[t]++
		}
		score := 0.0
		for _, t := range qterms {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			score += bm25.Weight(bm25.IDF(n, float64(df[t])), f, bm25.Norm(float64(len(doc)), avg))
		}
		if score > 0 {
			hits = append(hits, SearchHit{Observation: obs[i], Score: score})
		}
	}
	slices.SortFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	if len(hits) > q.TopK {
		hits = hits[:q.TopK]
	}
	return hits, nil
}

// Tokens splits text into lower-cased maximal runs of letters and digits.
func Tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func distinctTerms(ts []string) []string {
	out := slices.Clone(ts)
	slices.Sort(out)
	return slices.Compact(out)
}
