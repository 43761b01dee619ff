package mcpserver_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestContextRecallsByDefault: memory_context without topK recalls (the
// tool's description says topK defaults to 5 and the instructions promise
// recalled older turns); before, it recalled nothing unless the model gave
// topK. A server that configures recall has its options applied instead
// (here TopK 1 without neighbours: one turn recalled), and a topK given
// overrides both.
func TestContextRecallsByDefault(t *testing.T) {
	alice, _, _ := principals(t)
	for _, tc := range []struct {
		name   string
		cfg    engine.Config
		topK   int
		recall func(n int) bool
		want   string
	}{
		{"NoneConfigured", engine.Config{}, 0, func(n int) bool { return n >= 2 }, "the default topK's turns and neighbours"},
		{"Configured", engine.Config{Recall: &recall.Options{TopK: 1}}, 0, func(n int) bool { return n == 1 }, "1 (the configured topK, no neighbours)"},
		{"Given", engine.Config{Recall: &recall.Options{TopK: 1}}, 3, func(n int) bool { return n >= 3 }, "at least the 3 asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, enginetest.MustOpen(t, tc.cfg), alice)
			msgs := []map[string]any{
				{"role": "user", "content": "the spare key is under the flowerpot"},
				{"role": "assistant", "content": "noted: the key is under the flowerpot"},
				{"role": "user", "content": "the bike key hangs by the door"},
				{"role": "assistant", "content": "noted: the bike key is by the door"},
				{"role": "user", "content": "the car key is in the drawer"},
				{"role": "assistant", "content": "ok"},
				{"role": "user", "content": "what is the weather like"},
			}
			if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": msgs}, nil); failed {
				t.Fatalf("append: %s", text)
			}
			args := map[string]any{"threadId": "t1", "query": "where is the key", "recentN": 1}
			if tc.topK != 0 {
				args["topK"] = tc.topK
			}
			var out map[string]any
			if failed, text := call(t, cs, "memory_context", args, &out); failed {
				t.Fatalf("context: %s", text)
			}
			n, _ := out["recalled"].(float64)
			if !tc.recall(int(n)) {
				t.Errorf("recalled %v; want %s", out["recalled"], tc.want)
			}
			if notice, ok := out["notice"]; ok {
				t.Errorf("notice %q; want none (recall is on)", notice)
			}
		})
	}
}
