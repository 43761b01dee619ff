package pgstore_test

import (
	"slices"
	"testing"

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
