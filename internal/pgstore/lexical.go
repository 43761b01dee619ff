package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/store"
)

// LexicalDoc is one message as the lexical channel indexes it: its terms
// are the analysed terms of its searchable text (recall's Lexical.Terms,
// the analyser the SQLite backend indexes with), in order, so that
// len(Terms) is the BM25 document length.
type LexicalDoc struct {
	MessageID  string
	ResourceID string
	CreatedAt  int64 // Unix milliseconds, UTC (messages.created_at)
	Terms      []string
	// AnswerBits are the answer types whose expressions the text holds
	// (recall.AnswerBits: 1 a duration, 2 a time expression, 4 a count;
	// 0 none),
	// stored in lexical_docs.atypes and counted per resource.
	AnswerBits uint8
	// RefFrom and RefTo (Unix milliseconds, UTC; both 0 for none) are the
	// period the text's relative date points to (recall.RelativeDate),
	// RefMonths its months (recall.Referent.Months); stored in
	// lexical_docs.ref_from, ref_to and ref_months.
	RefFrom, RefTo int64
	RefMonths      uint16
}

// refCols returns d's relative date as lexical_docs stores it: NULLs for
// none.
func (d *LexicalDoc) refCols() (from, to *int64, months int16) {
	if d.RefFrom == 0 && d.RefTo == 0 {
		return nil, nil, 0
	}
	f, t := d.RefFrom, d.RefTo
	return &f, &t, int16(d.RefMonths)
}

// BM25Stats are a resource's lexical statistics as stored: Docs indexed
// documents, TotalLen terms over all of them, and DF, the number of
// documents holding each term asked for (absent: none does), and
// AnswerDF[i], the number of documents carrying answer type 1<<i
// (LexicalDoc.AnswerBits; a document not tagged yet carries none).
type BM25Stats struct {
	Docs     int64
	TotalLen int64
	DF       map[string]int64
	AnswerDF [AnswerTypes]int64
}

// AnswerTypes is how many answer types lexical_docs.atypes and
// lexical_stats count (recall.NumAnswerTypes; a test checks they agree).
const AnswerTypes = 3

// PutLexical indexes docs in the caller's transaction; the BM25 statistics
// follow in the same statement (triggers on lexical_docs). A document
// already indexed is replaced when its terms, resource or time differ, and
// left untouched otherwise, so a retried index operation changes nothing.
// The documents are written in (resource, message) order, the order every
// writer locks statistics rows in. It returns ErrInvalid, naming the
// message, for an empty id or resource or for a term that Postgres text
// cannot hold (invalid UTF-8 or NUL).
func PutLexical(ctx context.Context, q Querier, docs []LexicalDoc) error {
	sorted, err := sortedDocs(docs)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for _, d := range sorted {
		terms := d.Terms
		if terms == nil {
			terms = []string{}
		}
		rf, rt, rm := d.refCols()
		b.Queue(`INSERT INTO lexical_docs (message_id, resource_id, created_at, terms, atypes, ref_from, ref_to, ref_months) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (message_id) DO UPDATE SET resource_id = excluded.resource_id, created_at = excluded.created_at, terms = excluded.terms, atypes = excluded.atypes,
	ref_from = excluded.ref_from, ref_to = excluded.ref_to, ref_months = excluded.ref_months
WHERE (lexical_docs.resource_id, lexical_docs.created_at, lexical_docs.terms, lexical_docs.atypes, lexical_docs.ref_from, lexical_docs.ref_to, lexical_docs.ref_months)
	IS DISTINCT FROM (excluded.resource_id, excluded.created_at, excluded.terms, excluded.atypes, excluded.ref_from, excluded.ref_to, excluded.ref_months)`,
			d.MessageID, d.ResourceID, d.CreatedAt, terms, int16(d.AnswerBits), rf, rt, rm)
	}
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("pgstore: index %d lexical docs: %w", len(docs), err)
	}
	return nil
}

// PutLexicalTx is PutLexical on a database/sql transaction on pgx's
// driver (the engine's *store.Tx, which the table owners share): every
// document goes in one INSERT (the terms travel as JSON arrays), so the
// statistics triggers run once for the batch. The same rules hold: sorted
// in (resource, message) order, an unchanged document is not rewritten,
// ErrInvalid for a malformed document. A document whose message is not
// stored (erased meanwhile) is left out: the message row is locked (FOR KEY
// SHARE) as its entry is written, so an erasure either came first or
// waits and deletes the entry with it.
func PutLexicalTx(ctx context.Context, tx store.Conn, docs []LexicalDoc) error {
	if len(docs) == 0 {
		return nil
	}
	sorted, err := sortedDocs(docs)
	if err != nil {
		return err
	}
	ids, resources, created, terms := make([]string, len(sorted)), make([]string, len(sorted)), make([]int64, len(sorted)), make([]string, len(sorted))
	atypes := make([]int16, len(sorted))
	refFrom, refTo, refMonths := make([]*int64, len(sorted)), make([]*int64, len(sorted)), make([]int16, len(sorted))
	for i, d := range sorted {
		refFrom[i], refTo[i], refMonths[i] = d.refCols()
		t := d.Terms
		if t == nil {
			t = []string{}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("%w: lexical doc of message %s: %v", ErrInvalid, d.MessageID, err)
		}
		ids[i], resources[i], created[i], terms[i], atypes[i] = d.MessageID, d.ResourceID, d.CreatedAt, string(b), int16(d.AnswerBits)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO lexical_docs (message_id, resource_id, created_at, terms, atypes, ref_from, ref_to, ref_months)
SELECT u.m, u.r, u.c, ARRAY(SELECT e.x FROM jsonb_array_elements_text(u.t::jsonb) WITH ORDINALITY AS e(x, n) ORDER BY e.n), u.a, u.rf, u.rt, u.rm
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::smallint[], $6::bigint[], $7::bigint[], $8::smallint[]) WITH ORDINALITY AS u(m, r, c, t, a, rf, rt, rm, i)
JOIN messages g ON g.id = u.m ORDER BY u.i FOR KEY SHARE OF g
ON CONFLICT (message_id) DO UPDATE SET resource_id = excluded.resource_id, created_at = excluded.created_at, terms = excluded.terms, atypes = excluded.atypes,
	ref_from = excluded.ref_from, ref_to = excluded.ref_to, ref_months = excluded.ref_months
WHERE (lexical_docs.resource_id, lexical_docs.created_at, lexical_docs.terms, lexical_docs.atypes, lexical_docs.ref_from, lexical_docs.ref_to, lexical_docs.ref_months)
	IS DISTINCT FROM (excluded.resource_id, excluded.created_at, excluded.terms, excluded.atypes, excluded.ref_from, excluded.ref_to, excluded.ref_months)`,
		ids, resources, created, terms, atypes, refFrom, refTo, refMonths)
	if err != nil {
		return fmt.Errorf("pgstore: index %d lexical docs: %w", len(docs), err)
	}
	return nil
}

// sortedDocs checks docs and returns them in (resource, message) order.
func sortedDocs(docs []LexicalDoc) ([]LexicalDoc, error) {
	for _, d := range docs {
		if err := d.check(); err != nil {
			return nil, err
		}
	}
	sorted := slices.Clone(docs)
	slices.SortFunc(sorted, func(a, b LexicalDoc) int {
		if c := strings.Compare(a.ResourceID, b.ResourceID); c != 0 {
			return c
		}
		return strings.Compare(a.MessageID, b.MessageID)
	})
	return sorted, nil
}

func (d LexicalDoc) check() error {
	if d.MessageID == "" || d.ResourceID == "" {
		return fmt.Errorf("%w: lexical doc of message %q: empty message id or resource id", ErrInvalid, d.MessageID)
	}
	if (d.RefFrom != 0 || d.RefTo != 0) && d.RefFrom >= d.RefTo || d.RefMonths >= 1<<12 {
		return fmt.Errorf("%w: lexical doc of message %s: RefFrom %d, RefTo %d, RefMonths %#x: not a period and its months", ErrInvalid, d.MessageID, d.RefFrom, d.RefTo, d.RefMonths)
	}
	for _, t := range d.Terms {
		if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
			return fmt.Errorf("%w: lexical doc of message %s: term %q is not text Postgres can store", ErrInvalid, d.MessageID, t)
		}
	}
	return nil
}

// RemoveLexical removes the lexical entries of messageIDs in the caller's
// transaction, with their share of the statistics; a term no document
// holds any more leaves lexical_df. Deleting the messages themselves does
// the same (the entries cascade).
func RemoveLexical(ctx context.Context, q Querier, messageIDs []string) error {
	if _, err := q.Exec(ctx, `DELETE FROM lexical_docs WHERE message_id = ANY($1)`, messageIDs); err != nil {
		return fmt.Errorf("pgstore: remove %d lexical docs: %w", len(messageIDs), err)
	}
	return nil
}

// Stats reads resourceID's BM25 statistics for terms (the query's analysed
// terms). A resource with nothing indexed has zero statistics.
func Stats(ctx context.Context, q Querier, resourceID string, terms []string) (BM25Stats, error) {
	s := BM25Stats{DF: map[string]int64{}}
	err := q.QueryRow(ctx, `SELECT docs, total_len, duration_docs, time_docs, count_docs FROM lexical_stats WHERE resource_id = $1`,
		resourceID).Scan(&s.Docs, &s.TotalLen, &s.AnswerDF[0], &s.AnswerDF[1], &s.AnswerDF[2])
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("pgstore: lexical stats of %s: %w", resourceID, err)
	}
	rows, err := q.Query(ctx, `SELECT term, df FROM lexical_df WHERE resource_id = $1 AND term = ANY($2)`, resourceID, terms)
	if err != nil {
		return s, fmt.Errorf("pgstore: document frequencies of %s: %w", resourceID, err)
	}
	var term string
	var df int64
	_, err = pgx.ForEachRow(rows, []any{&term, &df}, func() error {
		s.DF[term] = df
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("pgstore: document frequencies of %s: %w", resourceID, err)
	}
	return s, nil
}

// TermsQuery returns the tsquery text that matches a document holding any
// of terms (analysed query terms): 'a' | 'b' | …, each term quoted as
// tsquery input requires; terms lexemes cannot hold (empty, over 2047
// bytes) are left out, and "" is returned when none is left (no document
// can match). Pass it as a parameter cast to tsquery ($1::tsquery), never
// through to_tsquery, which would analyse the terms again.
func TermsQuery(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		if t == "" || len(t) > 2047 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		b.WriteByte('\'')
		tsqueryQuote.WriteString(&b, t)
		b.WriteByte('\'')
	}
	return b.String()
}

// tsqueryQuote escapes a lexeme inside single quotes in tsquery input.
var tsqueryQuote = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// LexicalCandidate is an indexed document that holds at least one query
// term: its length in terms (the BM25 document length) and the
// occurrences of each query term (TF[i] for terms[i]), which is all BM25
// needs from the document.
type LexicalCandidate struct {
	MessageID string
	Len       int
	TF        []int
}

// LexicalCandidates returns every document of resourceID that holds one
// of terms (distinct analysed query terms), found through the GIN index on
// lexical_docs.tsv; with Stats it gives the textbook BM25 of each (the
// caller scores with internal/bm25, the one formula of both backends). The
// order is unspecified. Every match is returned: bounding the pool for
// large resources (ranking it in SQL) is left to the Postgres searcher.
func LexicalCandidates(ctx context.Context, q Querier, resourceID string, terms []string) ([]LexicalCandidate, error) {
	tsq := TermsQuery(terms)
	if tsq == "" {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT d.message_id, cardinality(d.terms),
	ARRAY(SELECT cardinality(array_positions(d.terms, qt)) FROM unnest($3::text[]) WITH ORDINALITY AS q(qt, i) ORDER BY i)
FROM lexical_docs d WHERE d.resource_id = $1 AND d.tsv @@ $2::tsquery`, resourceID, tsq, terms)
	if err != nil {
		return nil, fmt.Errorf("pgstore: lexical candidates of %s: %w", resourceID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LexicalCandidate, error) {
		var c LexicalCandidate
		err := r.Scan(&c.MessageID, &c.Len, &c.TF)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: lexical candidates of %s: %w", resourceID, err)
	}
	return out, nil
}

// LexicalIDs returns the ids of the messages with a lexical entry.
func LexicalIDs(ctx context.Context, q Querier) (map[string]bool, error) {
	rows, err := q.Query(ctx, `SELECT message_id FROM lexical_docs`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: lexical ids: %w", err)
	}
	out := map[string]bool{}
	var id string
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { out[id] = true; return nil }); err != nil {
		return nil, fmt.Errorf("pgstore: lexical ids: %w", err)
	}
	return out, nil
}

// Unindexed returns up to limit ids of stored messages without a complete
// lexical entry, in the order they were stored: none (written before
// entries were, or by a writer that did not index), or one whose answer
// types and relative date are not tagged (atypes NULL: written before
// schema version 4).
// Writing their entries again (PutLexical) completes them.
func Unindexed(ctx context.Context, q Querier, limit int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT m.id FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM lexical_docs d WHERE d.message_id = m.id AND d.atypes IS NOT NULL) ORDER BY m.pk LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: unindexed messages: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgstore: unindexed messages: %w", err)
	}
	return ids, nil
}
