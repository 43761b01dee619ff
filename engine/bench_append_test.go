package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkAppend measures one Append of a batch of messages to a thread,
// with the outbox write and without waiting for the indexes.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{1, 10} {
		b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
			e := enginetest.MustOpen(b, engine.Config{})
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				msgs := make([]engine.Message, size)
				for j := range msgs {
					msgs[j] = engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("message %d about trains, gardens and quarterly reports", i)}
					i++
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i%50), ResourceID: "r", Messages: msgs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
