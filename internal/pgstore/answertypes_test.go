package pgstore_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAnswerTypesAgree: the answer types Postgres counts are recall's.
func TestAnswerTypesAgree(t *testing.T) {
	if pgstore.AnswerTypes != recall.NumAnswerTypes || recall.AnswerDuration != 1 || recall.AnswerTime != 2 || recall.AnswerCount != 4 {
		t.Fatalf("pgstore counts %d answer types (1 duration, 2 time, 4 count); recall has %d (duration %d, time %d, count %d)",
			pgstore.AnswerTypes, recall.NumAnswerTypes, recall.AnswerDuration, recall.AnswerTime, recall.AnswerCount)
	}
}

// TestMigrateAnswerTypes: a database of schema version 2 (lexical entries
// without answer types) migrates to entries not tagged yet (atypes NULL),
// counted as carrying none, so the statistics stay consistent; Unindexed
// lists them, and writing them again tags and counts them.
func TestMigrateAnswerTypes(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, 2); err != nil {
		t.Fatal(err)
	}
	texts := []string{"we stayed two weeks", "I went there yesterday", "dogs and cats", "for 3 months, since 2021"}
	pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('th', 'A', 0, 0)`)
	var docs []pgstore.LexicalDoc
	for i, text := range texts {
		id := string(rune('a' + i))
		pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest)
VALUES ($1, 'th', 'A', $2, 'user', $3, 0, 1, 'd')`, id, i+1, text)
		terms := recall.Analyze(text)
		pgtest.Exec(t, dsn, `INSERT INTO lexical_docs (message_id, resource_id, created_at, terms) VALUES ($1, 'A', 0, $2)`, id, terms)
		docs = append(docs, pgstore.LexicalDoc{MessageID: id, ResourceID: "A", Terms: terms, AnswerBits: recall.AnswerBits(text)})
	}
	pool := mustOpen(t, dsn)
	untagged := slices.Clone(docs)
	for i := range untagged {
		untagged[i].AnswerBits = 0
	}
	checkStats(t, pool, untagged, "A")
	var nulls int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM lexical_docs WHERE atypes IS NULL`).Scan(&nulls); err != nil || nulls != len(texts) {
		t.Fatalf("entries not tagged after the migration = %d (%v), want %d", nulls, err, len(texts))
	}
	ids, err := pgstore.Unindexed(ctx, pool, 100)
	if err != nil || !slices.Equal(ids, []string{"a", "b", "c", "d"}) {
		t.Fatalf("Unindexed = %v (%v), want every migrated entry", ids, err)
	}
	inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs) })
	checkStats(t, pool, docs, "A")
	if st, _ := pgstore.Stats(ctx, pool, "A", nil); st.AnswerDF != [3]int64{2, 2, 2} {
		t.Fatalf("answer-type counts %v, want [2 2 2] (durations: a, d; times: b, d; counts: a two, d 3)", st.AnswerDF)
	}
	if ids, err := pgstore.Unindexed(ctx, pool, 100); err != nil || len(ids) != 0 {
		t.Fatalf("Unindexed after tagging = %v (%v), want none", ids, err)
	}
	if n, err := statsMismatches(ctx, pool); err != nil || n != 0 {
		t.Fatalf("statistics rows differing from a recount: %d (%v)", n, err)
	}
}

// TestMigrateRelativeDates: a database of schema version 3 (entries
// tagged with answer types but no relative date) migrates to entries not
// tagged yet (atypes NULL, no relative date), counted as carrying none;
// Unindexed lists them, and writing them again stores each relative date
// (ref_from, ref_to, ref_months) and the types. A malformed period is
// refused naming the message.
func TestMigrateRelativeDates(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, 3); err != nil {
		t.Fatal(err)
	}
	said := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	texts := []string{"I went to the support group yesterday", "dogs and cats", "a flood last week"}
	pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('th', 'A', 0, 0)`)
	var docs []pgstore.LexicalDoc
	for i, text := range texts {
		id := string(rune('a' + i))
		pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest)
VALUES ($1, 'th', 'A', $2, 'user', $3, $4, 1, 'd')`, id, i+1, text, said.UnixMilli())
		terms := recall.Analyze(text)
		pgtest.Exec(t, dsn, `INSERT INTO lexical_docs (message_id, resource_id, created_at, terms, atypes) VALUES ($1, 'A', $2, $3, $4)`,
			id, said.UnixMilli(), terms, int16(recall.AnswerBits(text)))
		d := pgstore.LexicalDoc{MessageID: id, ResourceID: "A", CreatedAt: said.UnixMilli(), Terms: terms, AnswerBits: recall.AnswerBits(text)}
		if r := recall.RelativeDate(text, said, nil); !r.IsZero() {
			d.RefFrom, d.RefTo, d.RefMonths = r.From.UnixMilli(), r.To.UnixMilli(), r.Months()
		}
		docs = append(docs, d)
	}
	pool := mustOpen(t, dsn)
	untagged := slices.Clone(docs)
	for i := range untagged {
		untagged[i].AnswerBits = 0
	}
	checkStats(t, pool, untagged, "A")
	if ids, err := pgstore.Unindexed(ctx, pool, 100); err != nil || !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("Unindexed = %v (%v), want every migrated entry", ids, err)
	}
	inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs) })
	checkStats(t, pool, docs, "A")
	rows, err := pool.Query(ctx, `SELECT message_id, coalesce(ref_from, 0), coalesce(ref_to, 0), ref_months FROM lexical_docs ORDER BY message_id`)
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		ID       string
		From, To int64
		Months   int16
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ref])
	day := func(d int) int64 { return time.Date(2023, time.May, d, 0, 0, 0, 0, time.UTC).UnixMilli() }
	want := []ref{{"a", day(7), day(8), 1 << 4}, {"b", 0, 0, 0}, {"c", day(1), day(8), 1 << 4}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("relative dates stored %+v (%v), want %+v", got, err, want)
	}
	if ids, err := pgstore.Unindexed(ctx, pool, 100); err != nil || len(ids) != 0 {
		t.Fatalf("Unindexed after tagging = %v (%v), want none", ids, err)
	}
	bad := docs[0]
	bad.RefFrom, bad.RefTo = day(8), day(7)
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, []pgstore.LexicalDoc{bad}) })
	if !errors.Is(err, pgstore.ErrInvalid) || !strings.Contains(err.Error(), "RefFrom") || !strings.Contains(err.Error(), "message a") {
		t.Fatalf("a period ending before it starts: %v, want ErrInvalid naming RefFrom and the message", err)
	}
}
