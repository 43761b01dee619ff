package pgrecall

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
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
// bonus, and the answer types.
type lexScorer struct {
	n, avgdl  float64
	idfs      []float64 // of view.lexTerms[:nq]
	nq        int       // the query's own distinct terms lead lexTerms
	dates     []dateTerm
	types     []typeTerm
	compounds []compound
}

// periods returns the query dates l scores (recall.Ranking.Dates); none
// for a nil l (the lexical channel could not be prepared).
func (l *lexScorer) periods() []recall.DatePeriod {
	if l == nil {
		return nil
	}
	var out []recall.DatePeriod
	for _, dt := range l.dates {
		out = append(out, dt.period)
	}
	return out
}

// typeTerm is an answer type the query asks for (recall.AskedTypes) with
// its idf over the resource's messages (recall's typeTerm).
type typeTerm struct {
	bit uint8
	idf float64
}

type dateTerm struct {
	period recall.DatePeriod
	idf    float64
}

// compound is a compound identifier of the query with the positions of
// its analysed words among the query's terms (recall's compound).
type compound struct {
	text  string
	idf   float64
	terms []int
}

// hasTerms says whether the query has analysed or date terms at all.
func (l *lexScorer) hasTerms() bool { return l.nq > 0 || len(l.dates) > 0 || len(l.types) > 0 }

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
		if cp, ok := l.compound(c, terms, st.DF); ok {
			l.compounds = append(l.compounds, cp)
		}
	}
	if !t.NoDates && st.Docs > 0 {
		if l.dates, err = v.dateTerms(ctx, l.n); err != nil {
			return err
		}
	}
	if !t.NoAnswerTypes && st.Docs > 0 {
		l.types = typeTerms(v.q.Text, l.n, st.AnswerDF)
	}
	v.lex, v.lexTerms = l, terms
	return nil
}

// compound returns the compound identifier c of the query whose terms are
// terms; false when it gives no bonus (recall's compounds and lexScorer):
// its words' idfs sum to 0, or one of them is in no message or is not a
// word of the query.
func (l *lexScorer) compound(c string, terms []string, df map[string]int64) (compound, bool) {
	cp := compound{text: c}
	for _, term := range distinct(recall.Analyze(c)) {
		i := slices.Index(terms, term)
		if i < 0 || df[term] == 0 {
			return cp, false
		}
		cp.idf += bm25.IDF(l.n, float64(df[term]))
		cp.terms = append(cp.terms, i)
	}
	return cp, cp.idf > 0
}

// dateTerms returns the query's dates with their idf over the resource's
// messages; a date no message falls in is dropped (recall's dateTerms).
func (v *view) dateTerms(ctx context.Context, n float64) ([]dateTerm, error) {
	var out []dateTerm
	for _, p := range recall.QueryDates(v.q.Text, v.q.At, v.s.location(v.q.ResourceID)) {
		b := &sqlArgs{args: []any{v.q.ResourceID}}
		cond := "(" + b.period(p) + " OR " + b.refPeriod(p) + ")"
		var df int64
		err := v.s.pool.QueryRow(ctx, `SELECT count(*) FROM lexical_docs d WHERE d.resource_id = $1 AND `+cond, b.args...).Scan(&df)
		if err != nil {
			return nil, fmt.Errorf("pgrecall: messages in a date of %s: %w", v.q.ResourceID, err)
		}
		if df > 0 {
			out = append(out, dateTerm{p, bm25.IDF(n, float64(df))})
		}
	}
	return out, nil
}

// typeTerms returns the answer types text asks for with their idf over n
// messages of which df[i] carry type 1<<i; a type no message carries is
// dropped (recall's typeTerms).
func typeTerms(text string, n float64, df [pgstore.AnswerTypes]int64) []typeTerm {
	var out []typeTerm
	for _, bit := range recall.AskedTypes(text) {
		i := bits.TrailingZeros8(bit)
		if i < len(df) && df[i] > 0 {
			out = append(out, typeTerm{bit, bm25.IDF(n, float64(df[i]))})
		}
	}
	return out
}

// own is d's score by its own words, date and answer types (memoised).
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
	// Words, dates, then types: recall's order, so the sums are bit-equal.
	d.own, d.ownDone = sum+l.dateScore(d.doc.CreatedAt, d.ref, d.lexLen)+l.typeScore(d.atypes, d.lexLen), true
	return d.own
}

// typeScore is recall's typeScore: tf 1 for each query type d carries.
func (l *lexScorer) typeScore(atypes uint8, doclen int) float64 {
	if len(l.types) == 0 || atypes == 0 || l.n == 0 {
		return 0
	}
	var sum float64
	for _, t := range l.types {
		if atypes&t.bit != 0 {
			sum += bm25.Weight(t.idf, 1, bm25.Norm(float64(doclen), l.avgdl))
		}
	}
	return sum
}

// dateScore is recall's dateScore: for each query date, tf
// DatePeriod.TF (created in it, and its relative date ref in it).
func (l *lexScorer) dateScore(created time.Time, ref recall.Referent, doclen int) float64 {
	if len(l.dates) == 0 || l.n == 0 {
		return 0
	}
	var sum float64
	for _, dt := range l.dates {
		if tf := dt.period.TF(created, ref); tf > 0 {
			sum += bm25.Weight(dt.idf, float64(tf), bm25.Norm(float64(doclen), l.avgdl))
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
	if sc == 0 {
		return 0 // the bonus raises a match, it does not make one
	}
	for _, c := range l.compounds {
		if d.holds(c.terms) && recall.ContainsFolded(d.doc.Text(), c.text) {
			sc += c.idf
		}
	}
	return sc
}

// holds reports whether d holds each of the query terms at positions.
func (d *vdoc) holds(positions []int) bool {
	for _, i := range positions {
		if i >= len(d.tf) || d.tf[i] == 0 {
			return false
		}
	}
	return true
}

// lexicalChannel returns up to pool allowed candidates by lexical score:
// the messages of the scope that hold a query term or fall in a query
// date, ranked by their own score in SQL (rankedMatches), and the turns
// they lift by the context rule, each scored exactly in Go.
//
// Taking the top n by own score is exact once n holds pool allowed
// messages: a message outside them and their neighbours scores at most
// the n-th own score (its own words and its neighbours' are all below it),
// which every one of those pool allowed messages reaches. Without a filter
// n = pool + the excluded messages. With one that allows more than
// directLimit messages, the ranking is of the allowed messages and the
// turns around them only, up to the pool-th the filter's SQL condition
// allows (allowedMatchesSQL), in one statement. With a broad one
// (v.broad) it is of the resource's matches, up to the pool-th the SQL
// condition allows among the top broadSpan × pool (broadMatchesSQL).
// Otherwise (and when the SQL condition allows more than Filter.Match) n
// widens ×4 until pool allowed messages are among the top n or every
// match is.
func (s *Searcher) lexicalChannel(ctx context.Context, v *view) ([]recall.Scored, error) {
	l, pool := v.lex, v.poolSize()
	if !l.hasTerms() || l.n == 0 || v.universe != nil && len(v.universe) == 0 {
		return nil, nil
	}
	n := pool + len(v.q.Exclude)
	if v.allowedOK != nil || v.broad {
		n = pool // counts allowed rows, never an excluded one
	}
	for {
		ids, exhausted, err := s.rankedMatches(ctx, v, n)
		if err != nil {
			return nil, err
		}
		if err := v.ensure(ctx, ids, 2); err != nil {
			return nil, err
		}
		inTop := 0
		for _, id := range ids {
			if v.allowed(v.docs[id]) {
				inTop++
			}
		}
		if inTop >= pool || exhausted {
			return firstN(v.lexicalScored(ids), pool), nil
		}
		n *= 4 // widen: the filter removed candidates
	}
}

// lexicalScored scores the matches ids and the turns they lift (the
// context rule: a match's reply and, with the turn after, the turn it
// replies to); it returns the allowed ones of positive score, sorted.
func (v *view) lexicalScored(ids []string) []recall.Scored {
	t := v.s.tuning
	cands := map[string]bool{}
	for _, id := range ids {
		d := v.docs[id]
		if d == nil {
			continue
		}
		cands[id] = true
		if t.ContextWeight > 0 {
			cands[d.next] = true
			if !t.NoTurnAfter {
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
		if sc := v.lex.score(v, d); sc > 0 {
			out = append(out, recall.Scored{ID: id, Score: sc})
		}
	}
	sortScored(out)
	return out
}

// poolSize is how many candidates each channel returns:
// max(CandidatePool, TopK).
func (v *view) poolSize() int { return max(v.s.tuning.CandidatePool, v.p.Options.TopK) }

// rankedMatches returns the top n messages of the scope that hold a query
// term (the GIN index over lexical_docs.tsv), fall in a query date or
// carry an answer type the query asks for (its partial index), by
// their own BM25 score computed in SQL (the compound bonus counted for the
// messages holding all of a compound's parts), best first, and whether
// they are all of them. Past directLimit (v.allowedOK) n counts the
// rows the filter's SQL condition allows instead (allowedMatchesSQL), as
// it does under a broad filter (v.broad: the top broadSpan × n matches,
// cut after the n-th allowed, broadMatchesSQL).
func (s *Searcher) rankedMatches(ctx context.Context, v *view, n int) ([]string, bool, error) {
	allowed := v.allowedOK != nil
	b := &sqlArgs{args: []any{v.q.ResourceID}}
	inner, score := v.matchesSQL(b, allowed)
	if inner == "" {
		return nil, true, nil
	}
	var sql string
	limit := n
	switch {
	case allowed:
		sql = allowedMatchesSQL(b, v.universe, v.allowedOK, inner, score, n)
	case v.broad:
		limit = broadSpan * n
		sql = broadMatchesSQL(b, v, inner, score, limit)
	default:
		sql = `SELECT x.message_id, true FROM (` + inner + `) x ORDER BY ` + score + ` DESC, x.message_id LIMIT ` + b.add(n)
	}
	rows, err := s.pool.Query(ctx, sql, b.args...)
	if err != nil {
		return nil, false, fmt.Errorf("pgrecall: lexical matches in %s: %w", v.q.ResourceID, err)
	}
	var ids []string
	var oks []bool
	var id string
	var ok bool
	_, err = pgx.ForEachRow(rows, []any{&id, &ok}, func() error {
		ids, oks = append(ids, id), append(oks, ok)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("pgrecall: lexical matches in %s: %w", v.q.ResourceID, err)
	}
	if v.broad {
		ids, exhausted := trimAllowed(ids, oks, n, limit)
		return ids, exhausted, nil
	}
	k := 0
	for _, ok := range oks {
		if ok {
			k++
		}
	}
	return ids, k < n, nil
}

// broadMatchesSQL returns the statement ranking the resource's matches
// (inner, ranked by score) under a broad filter: the top limit, best
// first, each with whether it is allowed (view.allowedSQL), the filter
// checked on these candidates only.
func broadMatchesSQL(b *sqlArgs, v *view, inner, score string, limit int) string {
	return `SELECT r.message_id, ` + v.allowedSQL(b) + ` FROM (SELECT x.message_id, ` + score + ` AS sc FROM (` + inner + `) x
	ORDER BY sc DESC, x.message_id LIMIT ` + b.add(limit) + `) r
JOIN messages m ON m.id = r.message_id ORDER BY r.sc DESC, r.message_id`
}

// allowedMatchesSQL returns the statement ranking the matches (inner, its
// rows x with x.ok, ranked by score) among the messages ids (restrict's
// universe: those a filter allows, ok, and the turns around them, not ok),
// best first, up to the n-th allowed one: exact in one statement, the
// filter applied before the cut (issue 14), however many it allows. A
// turn around an allowed message is ranked (it lifts that message by the
// context rule) but not counted.
func allowedMatchesSQL(b *sqlArgs, ids []string, ok []bool, inner, score string, n int) string {
	return `WITH u(id, ok) AS MATERIALIZED (SELECT * FROM unnest(` + b.add(ids) + `::text[], ` + b.add(ok) + `::bool[])),
r AS (SELECT x.message_id, x.ok, ` + score + ` AS sc FROM (` + inner + `) x),
k AS (SELECT r.*, count(*) FILTER (WHERE r.ok) OVER (ORDER BY r.sc DESC, r.message_id) AS k FROM r)
SELECT message_id, ok FROM k WHERE k - ok::int < ` + b.add(n) + ` ORDER BY sc DESC, message_id`
}

// matchesSQL returns the statement of the matches' rows x (message_id,
// len and each term's occurrences; with allowed, joined with the allowed
// set u and its ok) and the expression of their own score over them; ""
// when the query has nothing to match.
func (v *view) matchesSQL(b *sqlArgs, allowed bool) (string, string) {
	l := v.lex
	// The inner query reads each match's length and the occurrences of
	// each query term (tf0, tf1, …); the outer one sums their BM25
	// weights, inline (a subquery per row cost 10× as much).
	var cols, terms []string
	norm := fmt.Sprintf("(%g * (1 - %g + %g * x.len / %s))", bm25.K1, bm25.B, bm25.B, b.add(l.avgdl))
	for i, term := range v.lexTerms[:l.nq] {
		cols = append(cols, fmt.Sprintf(", coalesce(cardinality(array_positions(d.terms, %s::text)), 0)::float8 AS tf%d", b.add(term), i))
		terms = append(terms, fmt.Sprintf("CASE WHEN x.tf%[1]d > 0 THEN %[2]s * x.tf%[1]d * %[3]g / (x.tf%[1]d + %[4]s) ELSE 0 END", i, b.add(l.idfs[i]), bm25.K1+1, norm))
	}
	var or []string
	if tsq := pgstore.TermsQuery(v.lexTerms[:l.nq]); tsq != "" {
		or = append(or, "d.tsv @@ "+b.add(tsq)+"::tsquery")
	}
	for i, dt := range l.dates {
		created, ref := b.period(dt.period), b.refPeriod(dt.period)
		or = append(or, created, ref)
		// tf: created in the period, plus its relative date in it.
		cols = append(cols, fmt.Sprintf(", ((%s)::int + coalesce(%s, false)::int)::float8 AS in%d", created, ref, i))
		terms = append(terms, fmt.Sprintf("CASE WHEN x.in%[1]d > 0 THEN %[2]s * x.in%[1]d * %[3]g / (x.in%[1]d + %[4]s) ELSE 0 END", i, b.add(dt.idf), bm25.K1+1, norm))
	}
	for i, tt := range l.types {
		// The bit is a literal: the condition is then the predicate of
		// the type's partial index (lexical_docs_duration, _time).
		cond := fmt.Sprintf("(d.atypes & %d) <> 0", tt.bit)
		or = append(or, cond)
		cols = append(cols, fmt.Sprintf(", coalesce(%s, false) AS ty%d", cond, i))
		terms = append(terms, fmt.Sprintf("CASE WHEN x.ty%d THEN %s * %g / (1 + %s) ELSE 0 END", i, b.add(tt.idf), bm25.K1+1, norm))
	}
	for i, c := range l.compounds {
		var all []string
		for _, part := range distinct(recall.Analyze(c.text)) {
			all = append(all, pgstore.TermsQuery([]string{part}))
		}
		cols = append(cols, fmt.Sprintf(", d.tsv @@ %s::tsquery AS cp%d", b.add(strings.Join(all, " & ")), i))
		terms = append(terms, fmt.Sprintf("CASE WHEN x.cp%d THEN %s ELSE 0 END", i, b.add(c.idf)))
	}
	if len(or) == 0 || len(terms) == 0 {
		return "", ""
	}
	from := ` FROM lexical_docs d`
	if allowed {
		// Each allowed message's entry by its key (OFFSET 0 keeps it a
		// subquery per id: as a join the planner hashed all the
		// resource's matches, 57,133 for 13,015 allowed, BENCHMARKS.md).
		cols, from = append(cols, ", u.ok"), ` FROM u, LATERAL (SELECT * FROM lexical_docs d WHERE d.message_id = u.id OFFSET 0) d`
	}
	inner := `SELECT d.message_id, cardinality(d.terms)::float8 AS len` + strings.Join(cols, "") +
		from + ` WHERE d.resource_id = $1 AND (` + strings.Join(or, " OR ") + `)`
	if v.p.Thread != "" {
		inner += ` AND d.message_id IN (SELECT id FROM messages WHERE thread_id = ` + b.add(v.p.Thread) + `)`
	}
	if v.universe != nil && !allowed {
		inner += ` AND d.message_id = ANY(` + b.add(v.universe) + `)`
	}
	return inner, strings.Join(terms, " + ")
}

// sqlArgs numbers the parameters of a statement being built.
type sqlArgs struct{ args []any }

// add appends a parameter and returns its placeholder.
func (b *sqlArgs) add(x any) string {
	b.args = append(b.args, x)
	return fmt.Sprintf("$%d", len(b.args))
}

// period is the condition on d.created_at (Unix ms, UTC) of a period (a
// month of any year: in the period's zone, by its name).
func (b *sqlArgs) period(p recall.DatePeriod) string {
	if p.From.IsZero() {
		zone := "UTC"
		if p.Zone != nil {
			zone = p.Zone.String()
		}
		return fmt.Sprintf(`extract(month FROM to_timestamp(d.created_at / 1000.0) AT TIME ZONE %s) = %s`, b.add(zone), b.add(int(p.Month)))
	}
	return fmt.Sprintf(`(d.created_at >= %s AND d.created_at < %s)`, b.add(p.From.UnixMilli()), b.add(p.To.UnixMilli()))
}

// refPeriod is the condition on d's relative date (lexical_docs.ref_from,
// ref_to, ref_months) sharing a day with a period (recall's
// DatePeriod.TF).
func (b *sqlArgs) refPeriod(p recall.DatePeriod) string {
	if p.From.IsZero() {
		return fmt.Sprintf(`(d.ref_months & %d) <> 0`, 1<<(p.Month-1))
	}
	return fmt.Sprintf(`(d.ref_from < %s AND d.ref_to > %s)`, b.add(p.To.UnixMilli()), b.add(p.From.UnixMilli()))
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
