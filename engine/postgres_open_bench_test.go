package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkPostgresOpen times engine.Open then Close on Postgres: on a
// schema already migrated (a process restarting) and on a fresh one (the
// migrations run; creating the empty schema is not timed). It skips
// without MNEMO_TEST_POSTGRES.
//
//	MNEMO_TEST_POSTGRES=DSN go test ./engine/ -run '^$' -bench PostgresOpen -benchtime 20x
func BenchmarkPostgresOpen(b *testing.B) {
	b.Run("migrated", func(b *testing.B) {
		dsn := pgtest.DSN(b)
		openClose(b, dsn)
		for b.Loop() {
			openClose(b, dsn)
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dsn := pgtest.DSN(b)
			b.StartTimer()
			openClose(b, dsn)
		}
	})
}

// openClose opens an engine on dsn and closes it.
func openClose(b *testing.B, dsn string) {
	b.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPostgresAppend measures one Append of one message on Postgres
// (its transaction: the schema version check, the thread lock, the
// message, its lexical entry and outbox row), to set beside
// pgstore's BenchmarkCheckVersion (the version check alone). It skips
// without MNEMO_TEST_POSTGRES.
//
//	MNEMO_TEST_POSTGRES=DSN go test ./engine/ -run '^$' -bench PostgresAppend -benchtime 2000x
func BenchmarkPostgresAppend(b *testing.B) {
	e, err := engine.Open(context.Background(), engine.Config{Postgres: pgtest.DSN(b), Embedder: recall.HashEmbedder{}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		msg := []engine.Message{{Role: engine.RoleUser, Content: fmt.Sprintf("message %d about trains, gardens and quarterly reports", i)}}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i%50), ResourceID: "r", Messages: msg}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPostgresJournalWrite measures the journal's writes made outside
// a transaction of their own, which on Postgres each run in one after the
// schema version check (store.WriteCheck): ClaimRun (a run's claim, then
// its owner read back) and LoadContext with a new RunID (the claim and
// the memctx record, two such writes, on a thread of 20 messages).
//
//	MNEMO_TEST_POSTGRES=DSN go test ./engine/ -run '^$' -bench PostgresJournalWrite -benchtime 1000x
func BenchmarkPostgresJournalWrite(b *testing.B) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Postgres: pgtest.DSN(b), Embedder: recall.HashEmbedder{}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	msgs := make([]engine.Message, 20)
	for i := range msgs {
		msgs[i] = engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("message %d about trains, gardens and quarterly reports", i)}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		b.Fatal(err)
	}
	b.Run("ClaimRun", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := e.Journal().ClaimRun(ctx, fmt.Sprintf("claim-%d", i), "t", "r"); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("LoadContextRun", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("load-%d", i), ThreadID: "t", ResourceID: "r"}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
