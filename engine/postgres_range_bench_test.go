package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkPostgresByteRanges measures the two listings that compare keys
// in byte order (COLLATE "C") on Postgres, among n resource states and n
// threads (inserted with SQL, analysed): WorkingMemoryResources' page of
// 100 in the middle of the states (page) and every state by pages of 100
// (walk, as mnemo export lists them), and ReservedIDs among the threads
// (mnemo check's note; none is reserved). It skips without
// MNEMO_TEST_POSTGRES.
//
//	MNEMO_TEST_POSTGRES=DSN go test ./engine/ -run '^$' -bench PostgresByteRanges -benchtime 20x
func BenchmarkPostgresByteRanges(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) { benchByteRanges(b, n) })
	}
}

func benchByteRanges(b *testing.B, n int) {
	ctx := context.Background()
	dsn := pgtest.DSN(b)
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	pgtest.Exec(b, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at)
		SELECT 't' || lpad(i::text, 6, '0'), 'r' || (i % 100), i, i FROM generate_series(1, $1) i`, n)
	pgtest.Exec(b, dsn, `INSERT INTO working_memory (scope, mode, content, version, updated_at, resource_id)
		SELECT 'resource:r' || lpad(i::text, 6, '0'), 'markdown', '# Notes', 1, 0, 'r' || lpad(i::text, 6, '0') FROM generate_series(1, $1) i`, n)
	pgtest.Exec(b, dsn, `ANALYZE threads, working_memory`)
	middle := fmt.Sprintf("r%06d", n/2)
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			if ids, err := e.WorkingMemoryResources(ctx, middle, 100); err != nil || len(ids) != 100 {
				b.Fatalf("WorkingMemoryResources = %d ids, %v", len(ids), err)
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			after, seen := "", 0
			for {
				ids, err := e.WorkingMemoryResources(ctx, after, 100)
				if err != nil {
					b.Fatal(err)
				}
				if seen += len(ids); len(ids) < 100 {
					break
				}
				after = ids[len(ids)-1]
			}
			if seen != n {
				b.Fatalf("walked %d states, want %d", seen, n)
			}
		}
	})
	b.Run("ReservedIDs", func(b *testing.B) {
		for b.Loop() {
			if threads, resources, err := e.ReservedIDs(ctx); err != nil || len(threads)+len(resources) != 0 {
				b.Fatalf("ReservedIDs = %q, %q, %v", threads, resources, err)
			}
		}
	})
}
