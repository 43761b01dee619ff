package working_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// BenchmarkMerge measures one merge-patch update (read, merge, validate,
// compare-and-swap with a history row) on a state of n fields.
func BenchmarkMerge(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := working.New(db, working.Config{Schema: json.RawMessage(`{"type":"object","additionalProperties":{"type":"integer"}}`)})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			key := working.ThreadKey("t")
			init := map[string]any{}
			for i := range n {
				init[fmt.Sprintf("f%d", i)] = i
			}
			if _, err := m.Merge(ctx, key, init, working.Origin{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, err := m.Merge(ctx, key, json.RawMessage(fmt.Sprintf(`{"f0":%d}`, i)), working.Origin{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
