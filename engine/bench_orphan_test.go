package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkLoadContextOrphan measures LoadContext on a thread of calls
// answered calls (2 messages each), then one tool result whose call id no
// call made (an orphan: the context leaves it out), then orphanTail plain
// turns; on each backend. The cases:
//
//	none      RecentN 20: the plain turns only, no query
//	recent    RecentN orphanTail+4: the window holds the orphan
//	query     RecentN 20, lexical recall (topK 2) of a plain turn of the thread's middle
//	recalled  RecentN 20, lexical recall (topK 2) of the orphan
//
// Finding the call an orphan answers reads, without an index of the call
// ids made, every assistant message of the thread before it: recent/none
// and recalled/query at calls-1000 against calls-50000 say whether that
// cost grows with the thread.
//
//	TMPDIR=/dev/shm go test ./engine/ -run '^$' -bench LoadContextOrphan -benchtime 20x
func BenchmarkLoadContextOrphan(b *testing.B) {
	for _, be := range enginetest.Available() {
		for _, calls := range []int{1000, 50000} {
			b.Run(fmt.Sprintf("%s/calls-%d", be.Name, calls), func(b *testing.B) {
				benchLoadContextOrphan(b, be, calls)
			})
		}
	}
}

const orphanTail = 24

func benchLoadContextOrphan(b *testing.B, be enginetest.Backend, calls int) {
	ctx := context.Background()
	e := be.MustOpen(b, engine.Config{})
	var fill []engine.Message
	flush := func(force bool) {
		if len(fill) >= 990 || force && len(fill) > 0 {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: fill}); err != nil {
				b.Fatal(err)
			}
			fill = nil
		}
	}
	for i := range calls {
		id := fmt.Sprintf("call_fill_%d", i)
		fill = append(fill, engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
			engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "read_file", Content: "package a"})
		if i == calls/2 {
			fill = append(fill, engine.Message{Role: engine.RoleUser, Content: "the walrus inventory spreadsheet"})
		}
		flush(false)
	}
	flush(true)
	fill = append(fill, engine.Message{Role: engine.RoleTool, ToolCallID: "call_stray", Name: "read_file", Content: "quokka ledger mismatch"})
	for j := range orphanTail {
		role := engine.RoleUser
		if j%2 == 1 {
			role = engine.RoleAssistant
		}
		fill = append(fill, engine.Message{Role: role, Content: fmt.Sprintf("plain turn %d", j)})
	}
	flush(true)
	if err := e.SyncIndexes(ctx); err != nil {
		b.Fatal(err)
	}
	// The first recall of a resource loads its lexical index: not the
	// pairing's cost, and not any one case's.
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RunID: "bench", ReplaceRun: true, RecentN: 20, Query: "plain turn",
		Recall: &recall.Options{TopK: 2, Mode: recall.ModeLexical}}); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name          string
		recentN       int
		query         string
		orphanDropped bool
	}{
		{"none", 20, "", false},
		{"recent", orphanTail + 4, "", true},
		{"query", 20, "walrus inventory spreadsheet", false},
		{"recalled", 20, "quokka ledger mismatch", true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			req := engine.LoadRequest{ThreadID: "t", RunID: "bench", ReplaceRun: true, RecentN: c.recentN, Query: c.query}
			if c.query != "" {
				req.Recall = &recall.Options{TopK: 2, Mode: recall.ModeLexical}
			}
			for b.Loop() {
				got, err := e.LoadContext(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if dropped := orphanDropped(got); dropped != c.orphanDropped {
					b.Fatalf("orphan dropped %v, want %v", dropped, c.orphanDropped)
				}
			}
		})
	}
}

// orphanDropped reports whether c's memctx record leaves a message out as
// an orphan tool result.
func orphanDropped(c *engine.Context) bool {
	for _, d := range c.MemCtx.Dropped {
		if d.Reason == journal.ReasonOrphanToolResult {
			return true
		}
	}
	return false
}
