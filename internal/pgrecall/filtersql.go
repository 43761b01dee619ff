package pgrecall

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/recall"
)

// A filtered search first reads the messages the filter allows, in SQL,
// once (restrict): the channels then search only those and the turns
// around them (which lift them by the context rule), as recall's
// directIDs and pre-filtered vector ranking do, instead of widening their
// candidate pools until enough allowed ones come up. A broad filter (one
// allowing more than a broadShare-th of the resource) is read no further
// than that: ranking half a resource by key cost more than ranking all of
// it, so the channels rank the resource by their own index, check the
// filter's SQL condition on their candidates in the same statement and
// widen until pool of them pass. Filter.Match stays the judge of every
// candidate: the SQL condition may allow more than the filter (a
// comparison it cannot express is TRUE), never less.

// directLimit is the most allowed messages the lexical channel ranks the
// matches of by widening; past it the channel counts the allowed ones
// in its ranking statement (allowedMatchesSQL).
var directLimit = 2048

// condSQL returns the SQL condition on messages m of filter node n and
// whether it is exact (true exactly when Filter.Match is); an inexact
// condition holds at least wherever Match does.
func condSQL(b *sqlArgs, n recall.FilterNode) (string, bool) {
	switch n.Op {
	case recall.OpAnd, recall.OpOr:
		if len(n.Kids) == 0 {
			return "TRUE", true
		}
		parts, exact := make([]string, len(n.Kids)), true
		for i, k := range n.Kids {
			var e bool
			parts[i], e = condSQL(b, k)
			exact = exact && e
		}
		sep := " AND "
		if n.Op == recall.OpOr {
			sep = " OR "
		}
		return "(" + strings.Join(parts, sep) + ")", exact
	case recall.OpNot:
		inner, exact := condSQL(b, n.Kids[0])
		if !exact {
			return "TRUE", false // NOT of a wider condition would be narrower
		}
		return "(NOT " + inner + ")", true
	}
	if n.Field == "metadata" {
		return metadataSQL(b, n)
	}
	return columnSQL(b, n), true
}

// columnSQL compares a column: role and thread byte-wise, seq and
// createdAt as float64 (as Match compares them).
func columnSQL(b *sqlArgs, n recall.FilterNode) string {
	col, typ := map[string]string{"role": "m.role", "threadId": "m.thread_id", "seq": "m.seq::float8", "createdAt": "m.created_at::float8"}[n.Field], "float8"
	if n.Field == "role" || n.Field == "threadId" {
		col, typ = col+` COLLATE "C"`, "text"
	}
	switch n.Op {
	case recall.OpIn, recall.OpNin:
		var vals any
		if typ == "text" {
			vals = typed[string](n.Values)
		} else {
			vals = typed[float64](n.Values)
		}
		list := fmt.Sprintf("%s = ANY(%s::%s[])", col, b.add(vals), typ)
		if n.Op == recall.OpNin {
			return "(NOT " + list + ")"
		}
		return "(" + list + ")"
	}
	sym := map[string]string{recall.OpEq: "=", recall.OpNe: "<>", recall.OpGt: ">", recall.OpGte: ">=", recall.OpLt: "<", recall.OpLte: "<="}[n.Op]
	return fmt.Sprintf("(%s %s %s::%s)", col, sym, b.add(n.Values[0]), typ)
}

// metadataSQL compares a metadata value: present with the value's JSON
// type and equal (or ordered) as Match compares scalars; absent values
// satisfy only $ne and $nin. A key segment that is a number is not
// expressed (jsonb paths index arrays by it, Match does not).
func metadataSQL(b *sqlArgs, n recall.FilterNode) (string, bool) {
	for _, k := range n.Key {
		if strings.Trim(k, "-0123456789") == "" {
			return "TRUE", false
		}
	}
	j := fmt.Sprintf("(m.metadata::jsonb #> %s::text[])", b.add(n.Key))
	is := func(op string, v any) string {
		switch x := v.(type) {
		case string:
			return fmt.Sprintf(`coalesce(jsonb_typeof(%s) = 'string' AND (%s #>> '{}') COLLATE "C" %s %s::text, false)`, j, j, op, b.add(x))
		case float64:
			return fmt.Sprintf(`coalesce(jsonb_typeof(%s) = 'number' AND (%s #>> '{}')::float8 %s %s::float8, false)`, j, j, op, b.add(x))
		case bool:
			return fmt.Sprintf(`coalesce(jsonb_typeof(%s) = 'boolean' AND (%s #>> '{}')::boolean = %s::boolean, false)`, j, j, b.add(x))
		}
		return fmt.Sprintf(`coalesce(jsonb_typeof(%s) = 'null', false)`, j)
	}
	switch n.Op {
	case recall.OpEq, recall.OpNe, recall.OpIn, recall.OpNin:
		var any []string
		for _, v := range n.Values {
			any = append(any, is("=", v))
		}
		cond := "(" + strings.Join(any, " OR ") + ")"
		if n.Op == recall.OpNe || n.Op == recall.OpNin {
			cond = "(NOT " + cond + ")"
		}
		return cond, true
	}
	sym := map[string]string{recall.OpGt: ">", recall.OpGte: ">=", recall.OpLt: "<", recall.OpLte: "<="}[n.Op]
	return is(sym, n.Values[0]), true
}

// directSQL reads the messages of the scope a filter allows (but the
// excluded ones), at most $4 of them (LIMIT $4: past it the filter is
// broad and nothing else is read), with their count and, when there are
// fewer than $4, the turns before and after each: rows (count, id, prev,
// next), or one row (count, "", "", "") when none or $4 are read. The
// filter's SQL condition follows it, then allowedTailSQL.
const directSQL = `WITH a AS MATERIALIZED (SELECT m.id, m.thread_id, m.seq FROM messages m
	WHERE m.resource_id = $1 AND ($2 = '' OR m.thread_id = $2) AND NOT (m.id = ANY($3)) AND `

const allowedTailSQL = ` LIMIT $4),
n AS (SELECT count(*) AS n FROM a)
SELECT n.n, coalesce(a.id, ''),
	coalesce((SELECT p.id FROM messages p WHERE p.thread_id = a.thread_id AND p.seq < a.seq ORDER BY p.seq DESC LIMIT 1), ''),
	coalesce((SELECT x.id FROM messages x WHERE x.thread_id = a.thread_id AND x.seq > a.seq ORDER BY x.seq LIMIT 1), '')
FROM n LEFT JOIN a ON n.n < $4`

// broadShare: a filter allowing more than a broadShare-th of its
// resource's messages (and more than directLimit) is broad: the channels
// rank the resource by their own index and check the filter on the
// candidates (rankedMatches, rankVectors), where ranking the allowed
// messages by key would cost more than the filter removes (BENCHMARKS.md,
// helper pgfilter3). 0: never broad.
var broadShare = 8

// broadAt returns the most allowed messages a filter of v's search may
// allow without being broad: max(directLimit, messages/broadShare) for a
// search of a resource of the given messages; unbounded (math.MaxInt64)
// under the thread scope, whose messages are few, or when broadShare is 0
// or the messages are not known (0).
func broadAt(v *view, messages float64) int64 {
	if v.p.Thread != "" || broadShare <= 0 || messages <= 0 {
		return math.MaxInt64
	}
	return max(int64(directLimit), int64(messages)/int64(broadShare))
}

// restrict sets v.universe to the messages the filter allows and the
// turns around them, read once for the search (directSQL); past
// directLimit allowed messages it also sets v.allowedOK, which of them
// the filter's SQL condition allows (the lexical channel's statement
// counts those, allowedMatchesSQL). Both channels then rank that set,
// the vector one by the embeddings' primary key (rankVectors). A broad
// filter (broadAt: more than messages/broadShare allowed, messages the
// resource's, as its lexical statistics count them) sets v.broad
// instead, after reading broadAt+1 ids only: the channels then rank the
// resource and check the filter on their candidates. Without a filter
// it leaves the channels unrestricted.
func (s *Searcher) restrict(ctx context.Context, v *view, messages float64) error {
	if v.p.Filter == nil {
		return nil
	}
	limit := broadAt(v, messages)
	if limit < math.MaxInt64 {
		limit++
	}
	u, ok, allowed, err := s.readAllowed(ctx, v, limit)
	if err != nil {
		return err
	}
	if allowed == limit && limit < math.MaxInt64 {
		v.broad = true
		return nil
	}
	v.setUniverse(u, ok, allowed)
	return nil
}

// restrictAll reads every message a broad filter allows with the turns
// around them and makes v rank them as restrict does a narrower filter's:
// the vector channel's exact path when the HNSW index returned fewer
// candidates than it was asked for (rankVectors).
func (s *Searcher) restrictAll(ctx context.Context, v *view) error {
	u, ok, allowed, err := s.readAllowed(ctx, v, math.MaxInt64)
	if err != nil {
		return err
	}
	v.broad = false
	v.setUniverse(u, ok, allowed)
	return nil
}

// setUniverse sets v.universe to u, and v.allowedOK to ok past
// directLimit allowed messages.
func (v *view) setUniverse(u []string, ok []bool, allowed int64) {
	v.universe = u
	if allowed > int64(directLimit) {
		v.allowedOK = ok
	}
}

// allowedSQL returns the condition on messages m that they are not
// excluded and the filter's SQL condition allows them (at least what
// Filter.Match allows, condSQL): a broad filter's check of a channel's
// candidates.
func (v *view) allowedSQL(b *sqlArgs) string {
	excl := make([]string, 0, len(v.q.Exclude))
	for id := range v.q.Exclude {
		excl = append(excl, id)
	}
	cond, _ := condSQL(b, v.p.Filter.Tree())
	return "(NOT (m.id = ANY(" + b.add(excl) + ")) AND " + cond + ")"
}

// broadSpan is how many candidates per allowed one a channel asks its
// index for under a broad filter, which allows more than one in
// broadShare (it widens ×4 when too few pass).
const broadSpan = 4

// trimAllowed returns the ranked ids up to the n-th allowed one (oks) and
// whether they hold every candidate: fewer than limit were ranked and
// none is cut.
func trimAllowed(ids []string, oks []bool, n, limit int) ([]string, bool) {
	k := 0
	for i, ok := range oks {
		if ok {
			k++
		}
		if k == n {
			return ids[:i+1], i+1 == len(ids) && len(ids) < limit
		}
	}
	return ids, len(ids) < limit
}

// readAllowed reads up to limit messages the filter of v allows with the
// turns around them (directSQL): the ids without repeats, which of them
// are allowed, and how many allowed ones were read (limit: only that
// count, no ids).
func (s *Searcher) readAllowed(ctx context.Context, v *view, limit int64) ([]string, []bool, int64, error) {
	excl := make([]string, 0, len(v.q.Exclude))
	for id := range v.q.Exclude {
		excl = append(excl, id)
	}
	b := &sqlArgs{args: []any{v.q.ResourceID, v.p.Thread, excl, limit}}
	cond, _ := condSQL(b, v.p.Filter.Tree())
	rows, err := s.pool.Query(ctx, directSQL+cond+allowedTailSQL, b.args...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("pgrecall: allowed messages of %s: %w", v.q.ResourceID, err)
	}
	var id, prev, next string
	var allowed int64
	at := map[string]int{} // index in u
	u, ok := []string{}, []bool{}
	add := func(x string, allowed bool) {
		if x == "" {
			return
		}
		i, seen := at[x]
		if !seen {
			i, at[x] = len(u), len(u)
			u, ok = append(u, x), append(ok, false)
		}
		ok[i] = ok[i] || allowed
	}
	_, err = pgx.ForEachRow(rows, []any{&allowed, &id, &prev, &next}, func() error {
		add(id, true)
		add(prev, false)
		add(next, false)
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("pgrecall: allowed messages of %s: %w", v.q.ResourceID, err)
	}
	return u, ok, allowed, nil
}

// typed returns vs as a []T (the parser checked their types).
func typed[T any](vs []any) []T {
	out := make([]T, 0, len(vs))
	for _, v := range vs {
		if x, ok := v.(T); ok {
			out = append(out, x)
		}
	}
	return out
}
