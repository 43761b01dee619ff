package pgrecall

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/recall"
)

// A filtered search first reads the messages the filter allows, in SQL,
// once (restrict): the channels then search only those and the turns
// around them (which lift them by the context rule), as recall's
// directIDs and pre-filtered vector ranking do, instead of widening their
// candidate pools until enough allowed ones come up. Filter.Match stays
// the judge of every candidate: the SQL condition may allow more than the
// filter (a comparison it cannot express is TRUE), never less.

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
// excluded ones), with the turns before and after each.
const directSQL = `SELECT m.id,
	coalesce((SELECT p.id FROM messages p WHERE p.thread_id = m.thread_id AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1), ''),
	coalesce((SELECT x.id FROM messages x WHERE x.thread_id = m.thread_id AND x.seq > m.seq ORDER BY x.seq LIMIT 1), '')
FROM messages m WHERE m.resource_id = $1 AND ($2 = '' OR m.thread_id = $2) AND NOT (m.id = ANY($3)) AND `

// restrict sets v.universe to the messages the filter allows and the
// turns around them, read once for the search (directSQL); past
// directLimit allowed messages it also sets v.allowedOK, which of them
// the filter's SQL condition allows (the lexical channel's statement
// counts those, allowedMatchesSQL). Both channels then rank that set,
// the vector one by the embeddings' primary key (rankVectors). Without a
// filter it leaves the channels unrestricted.
func (s *Searcher) restrict(ctx context.Context, v *view) error {
	if v.p.Filter == nil {
		return nil
	}
	excl := make([]string, 0, len(v.q.Exclude))
	for id := range v.q.Exclude {
		excl = append(excl, id)
	}
	b := &sqlArgs{args: []any{v.q.ResourceID, v.p.Thread, excl}}
	cond, _ := condSQL(b, v.p.Filter.Tree())
	rows, err := s.pool.Query(ctx, directSQL+cond, b.args...)
	if err != nil {
		return fmt.Errorf("pgrecall: allowed messages of %s: %w", v.q.ResourceID, err)
	}
	var id, prev, next string
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
	allowed := 0
	_, err = pgx.ForEachRow(rows, []any{&id, &prev, &next}, func() error {
		allowed++
		add(id, true)
		add(prev, false)
		add(next, false)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgrecall: allowed messages of %s: %w", v.q.ResourceID, err)
	}
	v.universe = u
	if allowed > directLimit {
		v.allowedOK = ok
	}
	return nil
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
