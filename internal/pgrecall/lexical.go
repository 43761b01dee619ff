package pgrecall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/bm25"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// lexScorer is recall's lexical score (lexScorer in recall) over the
// resource's statistics in Postgres: textbook BM25 of the query's distinct
// analysed terms, the date terms, the turn-context rule and the compound
// bonus.
type lexScorer struct {
	n, avgdl  float64
	idfs      []float64 // of view.lexTerms[:nq]
	nq        int       // the query's own distinct terms lead lexTerms
	dates     []dateTerm
	compounds []compound
}

type dateTerm struct {
	period recall.DatePeriod
	idf    float64
}

type compound struct {
	text string
	idf  float64
}

// hasTerms says whether the query has analysed or date terms at all.
func (l *lexScorer) hasTerms() bool { return l.nq > 0 || len(l.dates) > 0 }

// prepareLexical analyses the query and reads the statistics it needs:
// document count and length, the document frequencies of its terms and of
// its compounds' parts, and the messages in each date it names.
func (v *view) prepareLexical(ctx context.Context) error {
	t := v.s.tuning
	terms := distinct(recall.Analyze(v.q.Text))
	all := append([]string(nil), terms...)
	var comps []string
	if !t.NoCompounds {
		comps = recall.Compounds(v.q.Text)
		for _, c := range comps {
			all = append(all, recall.Analyze(c)...)
		}
	}
	all = distinct(all)
	st, err := pgstore.Stats(ctx, v.s.pool, v.q.ResourceID, all)
	if err != nil {
		return err
	}
	l := &lexScorer{n: float64(st.Docs), nq: len(terms)}
	if st.Docs > 0 {
		l.avgdl = float64(st.TotalLen) / float64(st.Docs)
	}
	idf := func(term string) float64 { return bm25.IDF(l.n, float64(st.DF[term])) }
	for _, term := range terms {
		l.idfs = append(l.idfs, idf(term))
	}
	for _, c := range comps {
		var sum float64
		for _, term := range distinct(recall.Analyze(c)) {
			sum += idf(term)
		}
		if sum > 0 {
			l.compounds = append(l.compounds, compound{c, sum})
		}
	}
	if !t.NoDates && st.Docs > 0 {
		if l.dates, err = v.dateTerms(ctx, l.n); err != nil {
			return err
		}
	}
	v.lex, v.lexTerms = l, terms
	return nil
}

// dateTerms returns the query's dates with their idf over the resource's
// messages; a date no message falls in is dropped (recall's dateTerms).
func (v *view) dateTerms(ctx context.Context, n float64) ([]dateTerm, error) {
	var out []dateTerm
	for _, p := range recall.QueryDates(v.q.Text) {
		cond, args := periodSQL(p, 2)
		var df int64
		err := v.s.pool.QueryRow(ctx, `SELECT count(*) FROM lexical_docs WHERE resource_id = $1 AND `+cond,
			append([]any{v.q.ResourceID}, args...)...).Scan(&df)
		if err != nil {
			return nil, fmt.Errorf("pgrecall: messages in a date of %s: %w", v.q.ResourceID, err)
		}
		if df > 0 {
			out = append(out, dateTerm{p, bm25.IDF(n, float64(df))})
		}
	}
	return out, nil
}

// periodSQL is the condition on lexical_docs.created_at (Unix ms) of a
// period, its parameters numbered from $at.
func periodSQL(p recall.DatePeriod, at int) (string, []any) {
	if p.From.IsZero() {
		return fmt.Sprintf(`extract(month FROM to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC') = $%d`, at), []any{int(p.Month)}
	}
	return fmt.Sprintf(`(created_at >= $%d AND created_at < $%d)`, at, at+1), []any{p.From.UnixMilli(), p.To.UnixMilli()}
}

// own is d's score by its own words and date (memoised).
func (l *lexScorer) own(d *vdoc) float64 {
	if d.ownDone {
		return d.own
	}
	var sum float64
	if l.n > 0 && d.lexLen > 0 {
		norm := bm25.Norm(float64(d.lexLen), l.avgdl)
		for i := 0; i < l.nq && i < len(d.tf); i++ {
			if d.tf[i] > 0 {
				sum += bm25.Weight(l.idfs[i], float64(d.tf[i]), norm)
			}
		}
	}
	d.own, d.ownDone = sum+l.dateScore(d.doc.CreatedAt, d.lexLen), true
	return d.own
}

// dateScore is recall's dateScore: tf 1 for each query date d falls in.
func (l *lexScorer) dateScore(created time.Time, doclen int) float64 {
	if len(l.dates) == 0 || l.n == 0 {
		return 0
	}
	var sum float64
	for _, dt := range l.dates {
		if dt.period.Contains(created) {
			sum += bm25.Weight(dt.idf, 1, bm25.Norm(float64(doclen), l.avgdl))
		}
	}
	return sum
}

// score is d's lexical score: max(own, α × own of the turns around it)
// plus the compound bonus; 0 for a message not fetched.
func (l *lexScorer) score(v *view, d *vdoc) float64 {
	if d == nil {
		return 0
	}
	sc := l.own(d)
	prev, next := v.context(d)
	for _, n := range []*vdoc{prev, next} {
		if n != nil {
			sc = max(sc, v.s.tuning.ContextWeight*l.own(n))
		}
	}
	if len(l.compounds) > 0 {
		text := d.doc.Text()
		for _, c := range l.compounds {
			if recall.ContainsFolded(text, c.text) {
				sc += c.idf
			}
		}
	}
	return sc
}

// lexicalChannel returns up to pool allowed candidates by lexical score:
// every message that holds a query term or falls in a query date, and the
// turns they lift (the context rule), scored exactly — what recall's
// in-memory enumeration returns.
func (s *Searcher) lexicalChannel(ctx context.Context, v *view) ([]recall.Scored, error) {
	l := v.lex
	if !l.hasTerms() {
		return nil, nil
	}
	ids, err := s.lexicalMatches(ctx, v)
	if err != nil {
		return nil, err
	}
	if err := v.ensure(ctx, ids, 2); err != nil {
		return nil, err
	}
	cands := map[string]bool{}
	for _, id := range ids {
		d := v.docs[id]
		if d == nil {
			continue
		}
		cands[id] = true
		// The turns whose context d is: its reply and, with the turn
		// after, the turn it replies to.
		if s.tuning.ContextWeight > 0 {
			cands[d.next] = true
			if !s.tuning.NoTurnAfter {
				cands[d.prev] = true
			}
		}
	}
	var out []recall.Scored
	for id := range cands {
		d := v.docs[id]
		if d == nil || !v.allowed(d) {
			continue
		}
		if sc := l.score(v, d); sc > 0 {
			out = append(out, recall.Scored{ID: id, Score: sc})
		}
	}
	sortScored(out)
	return firstN(out, v.poolSize()), nil
}

// poolSize is how many candidates each channel returns:
// max(CandidatePool, TopK).
func (v *view) poolSize() int { return max(v.s.tuning.CandidatePool, v.p.Options.TopK) }

// lexicalMatches returns the resource's (or the thread's) messages that
// hold a query term (the GIN index over lexical_docs.tsv) or fall in a
// query date.
func (s *Searcher) lexicalMatches(ctx context.Context, v *view) ([]string, error) {
	args := []any{v.q.ResourceID}
	var or []string
	if tsq := pgstore.TermsQuery(v.lexTerms); tsq != "" {
		args = append(args, tsq)
		or = append(or, fmt.Sprintf("tsv @@ $%d::tsquery", len(args)))
	}
	for _, dt := range v.lex.dates {
		cond, a := periodSQL(dt.period, len(args)+1)
		args = append(args, a...)
		or = append(or, cond)
	}
	if len(or) == 0 {
		return nil, nil
	}
	sql := `SELECT message_id FROM lexical_docs WHERE resource_id = $1 AND (` + strings.Join(or, " OR ") + `)`
	if v.p.Thread != "" {
		args = append(args, v.p.Thread)
		sql += fmt.Sprintf(` AND message_id IN (SELECT id FROM messages WHERE thread_id = $%d)`, len(args))
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("pgrecall: lexical matches in %s: %w", v.q.ResourceID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgrecall: lexical matches in %s: %w", v.q.ResourceID, err)
	}
	return ids, nil
}

// distinct returns terms without repeats, in first-seen order.
func distinct(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
