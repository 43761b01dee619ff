package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// BenchmarkPostgresWorkingMemoryWrite measures a run's working-memory
// update on Postgres (HandleToolCall of updateWorkingMemory, a new call
// id each time, under one run whose record exists): the write's
// in-flight check takes the run-context lock of the resource shared and
// reads the record again under it (journal.CheckRunContext). It skips
// without MNEMO_TEST_POSTGRES.
//
//	MNEMO_TEST_POSTGRES=DSN go test ./engine/ -run '^$' -bench PostgresWorkingMemoryWrite -benchtime 500x
func BenchmarkPostgresWorkingMemoryWrite(b *testing.B) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Postgres: pgtest.DSN(b), Embedder: recall.HashEmbedder{},
		WorkingMemory: &working.Config{Template: "# P\n", Scope: working.ScopeResource}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "I live in Lyon."}}}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run", ThreadID: "t", ResourceID: "r"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		call := openaitest.ToolCall(fmt.Sprintf("call_%d", i), tools.UpdateWorkingMemoryName, fmt.Sprintf(`{"memory":"# P\n- Visits: %d\n"}`, i))
		if _, err := e.HandleToolCall(ctx, "run", "t", "r", call); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
