package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkEraseSharedMetadata times DeleteThread of a thread of 100
// messages in a store of 20,000 (200 threads) that all carry the same
// metadata, {"source":"slack export"} (an import's), one message in 50
// ~10 KB long, so the metadata of those lies in their rows' overflow
// pages. The residue check looks for the erased messages' metadata and
// finds it there, in live rows: it vacuumed the file for it on every
// erasure before erase70. vacuums/op counts the erasures that vacuumed.
//
//	go test ./engine/ -run '^$' -bench EraseSharedMetadata -benchtime 10x
func BenchmarkEraseSharedMetadata(b *testing.B) {
	ctx := context.Background()
	e := enginetest.SQLite.MustOpen(b, engine.Config{})
	meta := map[string]any{"source": "slack export"}
	long := strings.Repeat("a long imported message that spills into overflow pages. ", 180)
	for th := range 200 {
		msgs := make([]engine.Message, 100)
		for i := range msgs {
			text := fmt.Sprintf("message %d of imported thread %d, some words about the channel", i, th)
			if i%50 == 7 {
				text += " " + long
			}
			msgs[i] = engine.Message{Role: engine.RoleUser, Content: text, Metadata: meta}
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%03d", th), ResourceID: "r", Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		b.Fatal(err)
	}
	vacuums := 0
	i := 0
	for b.Loop() {
		res, err := e.DeleteThread(ctx, fmt.Sprintf("t%03d", i))
		if err != nil {
			b.Fatal(err)
		}
		if res.Vacuumed != "" {
			vacuums++
		}
		i++
	}
	b.ReportMetric(float64(vacuums)/float64(i), "vacuums/op")
}
