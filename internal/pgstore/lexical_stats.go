package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/store"
)

// StatsMismatch is one resource whose stored BM25 statistics (lexical_stats,
// lexical_df) differ from a recount of its lexical entries (lexical_docs).
// Docs and TotalLen are the stored document count and total length in
// terms (0 when the resource has no lexical_stats row); CountedDocs and
// CountedLen the recount's (0 when it has no entry). Terms is how many of
// its terms' document frequencies differ (a stored row the recount lacks,
// a recounted term with no row, or a different count). AnswerDF and
// CountedAnswerDF are the stored and recounted documents carrying each
// answer type (BM25Stats.AnswerDF; an entry not tagged yet carries none).
type StatsMismatch struct {
	ResourceID                string
	Docs, CountedDocs         int64
	TotalLen, CountedLen      int64
	Terms                     int64
	AnswerDF, CountedAnswerDF [AnswerTypes]int64
}

// StatsMismatches recounts, per resource, the documents, their total
// length and every term's document frequency from lexical_docs, and
// returns up to limit resources (in id order, bytewise whatever the
// columns' collation, so a check lists the same first ones on every
// database) whose lexical_stats or lexical_df rows differ; nil when every
// row matches. It reads every lexical entry: a check, not a hot path.
func StatsMismatches(ctx context.Context, q Querier, limit int) ([]StatsMismatch, error) {
	rows, err := q.Query(ctx, `WITH c AS (SELECT resource_id, count(*) AS docs, sum(cardinality(terms)) AS len,
	count(*) FILTER (WHERE (atypes & 1) <> 0) AS dur, count(*) FILTER (WHERE (atypes & 2) <> 0) AS tim,
	count(*) FILTER (WHERE (atypes & 4) <> 0) AS cnt
	FROM lexical_docs GROUP BY 1),
s AS (SELECT resource_id, coalesce(s.docs, 0) AS docs, coalesce(c.docs, 0) AS cdocs,
	coalesce(s.total_len, 0) AS len, coalesce(c.len, 0) AS clen,
	ARRAY[coalesce(s.duration_docs, 0), coalesce(s.time_docs, 0), coalesce(s.count_docs, 0)] AS types,
	ARRAY[coalesce(c.dur, 0), coalesce(c.tim, 0), coalesce(c.cnt, 0)] AS ctypes
	FROM lexical_stats s FULL JOIN c USING (resource_id)
	WHERE s.docs IS DISTINCT FROM c.docs OR s.total_len IS DISTINCT FROM c.len
		OR (s.duration_docs, s.time_docs, s.count_docs) IS DISTINCT FROM (c.dur, c.tim, c.cnt)),
cd AS (SELECT resource_id, t AS term, count(DISTINCT message_id) AS df
	FROM lexical_docs, unnest(terms) AS t GROUP BY 1, 2),
f AS (SELECT resource_id, count(*) AS n FROM lexical_df f FULL JOIN cd USING (resource_id, term)
	WHERE f.df IS DISTINCT FROM cd.df GROUP BY 1)
SELECT resource_id, coalesce(s.docs, c.docs, 0), coalesce(s.cdocs, c.docs, 0),
	coalesce(s.len, c.len, 0), coalesce(s.clen, c.len, 0), coalesce(f.n, 0),
	coalesce(s.types, ARRAY[c.dur, c.tim, c.cnt]), coalesce(s.ctypes, ARRAY[c.dur, c.tim, c.cnt])
FROM s FULL JOIN f USING (resource_id) LEFT JOIN c USING (resource_id)
ORDER BY resource_id COLLATE "C" LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: recount lexical statistics: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (StatsMismatch, error) {
		var m StatsMismatch
		var types, ctypes []int64
		err := r.Scan(&m.ResourceID, &m.Docs, &m.CountedDocs, &m.TotalLen, &m.CountedLen, &m.Terms, &types, &ctypes)
		copy(m.AnswerDF[:], types)
		copy(m.CountedAnswerDF[:], ctypes)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: recount lexical statistics: %w", err)
	}
	return out, nil
}

// RebuildStats recomputes lexical_stats and lexical_df from lexical_docs in
// the caller's transaction tx (the engine's *store.Tx): rows that differ
// from the recount are corrected, missing ones written, and rows of a
// resource or term no entry holds deleted. It first takes a SHARE lock on
// lexical_docs, which waits for the transactions writing entries (whose
// triggers already moved the statistics) to end and holds off new ones
// until tx ends, so the recount and the rows agree when it commits; the
// lock comes before any statistics row, the order writers use. It returns
// how many statistics rows it changed.
func RebuildStats(ctx context.Context, tx store.Conn) (int64, error) {
	var changed int64
	for _, stmt := range rebuildStatements {
		res, err := tx.ExecContext(ctx, stmt)
		if err != nil {
			return changed, fmt.Errorf("pgstore: rebuild lexical statistics: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return changed, fmt.Errorf("pgstore: rebuild lexical statistics: %w", err)
		}
		changed += n
	}
	return changed, nil
}

// rebuildStatements are RebuildStats' statements, in order.
var rebuildStatements = []string{
	`LOCK TABLE lexical_docs IN SHARE MODE`,
	`DELETE FROM lexical_stats s WHERE NOT EXISTS (SELECT 1 FROM lexical_docs d WHERE d.resource_id = s.resource_id)`,
	`INSERT INTO lexical_stats AS s (resource_id, docs, total_len, duration_docs, time_docs, count_docs)
SELECT resource_id, count(*), sum(cardinality(terms)), count(*) FILTER (WHERE (atypes & 1) <> 0),
	count(*) FILTER (WHERE (atypes & 2) <> 0), count(*) FILTER (WHERE (atypes & 4) <> 0) FROM lexical_docs GROUP BY 1 ORDER BY 1
ON CONFLICT (resource_id) DO UPDATE SET docs = excluded.docs, total_len = excluded.total_len,
	duration_docs = excluded.duration_docs, time_docs = excluded.time_docs, count_docs = excluded.count_docs
WHERE (s.docs, s.total_len, s.duration_docs, s.time_docs, s.count_docs)
	IS DISTINCT FROM (excluded.docs, excluded.total_len, excluded.duration_docs, excluded.time_docs, excluded.count_docs)`,
	`WITH c AS (SELECT DISTINCT resource_id, t AS term FROM lexical_docs, unnest(terms) AS t)
DELETE FROM lexical_df f WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.resource_id = f.resource_id AND c.term = f.term)`,
	`INSERT INTO lexical_df AS f (resource_id, term, df)
SELECT resource_id, t, count(DISTINCT message_id) FROM lexical_docs, unnest(terms) AS t GROUP BY 1, 2 ORDER BY 1, 2
ON CONFLICT (resource_id, term) DO UPDATE SET df = excluded.df WHERE f.df <> excluded.df`,
}
