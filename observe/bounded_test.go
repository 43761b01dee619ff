package observe_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/storetest"
	"github.com/mnemo-go/mnemo/observe"
)

// heapNow returns the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// heapSamples keeps the largest live heap seen.
type heapSamples struct {
	mu  sync.Mutex
	max uint64
}

func (h *heapSamples) sample() {
	n := heapNow()
	h.mu.Lock()
	h.max = max(h.max, n)
	h.mu.Unlock()
}

// longSource is a PageSource over one long thread whose turns are made
// afresh on every read (questions and answers, size bytes of content
// each), as a database hands out new rows: what the observer keeps of
// them is what stays live. It samples the live heap on every read.
type longSource struct {
	n, size int
	heap    *heapSamples
}

func (s *longSource) turn(seq int64) observe.Turn {
	role := observe.RoleUser
	if seq%2 == 0 {
		role = observe.RoleAssistant
	}
	content := fmt.Sprintf("turn %d %s", seq, strings.Repeat("porto ", s.size/6))
	return observe.Turn{ID: fmt.Sprintf("m%d", seq), ThreadID: "big", ResourceID: "r", Seq: seq, Role: role,
		Content: content, Tokens: s.size / 4, CreatedAt: time.Unix(seq, 0)}
}

func (s *longSource) Messages(_ context.Context, threadID string, from, to int64) ([]observe.Turn, error) {
	s.heap.sample()
	var out []observe.Turn
	for seq := max(from, 1); threadID == "big" && seq <= min(to, int64(s.n)); seq++ {
		out = append(out, s.turn(seq))
	}
	return out, nil
}

func (s *longSource) MessagesPage(_ context.Context, threadID string, from int64, limit int) ([]observe.Turn, error) {
	s.heap.sample()
	var out []observe.Turn
	for seq := max(from, 1); threadID == "big" && seq <= int64(s.n) && len(out) < limit; seq++ {
		out = append(out, s.turn(seq))
	}
	return out, nil
}

// TestObserverHeapBounded: the observer reads a long unobserved thread a
// page at a time (Plan, Observe, ObserveRange; pages of 50 here), so the live heap stays far
// below the thread's size: on each read, during each model call and while
// the plan is held. It read every turn after the watermark at once before,
// and the plan's next chunk (and ObserveRange's turns) kept the whole
// thread's turns live: 32 MB of content here.
func TestObserverHeapBounded(t *testing.T) {
	b := backend{storetest.Backends[0]} // SQLite: the database holds no turns here
	defer observe.SetPageTurns(50)()
	const n, size = 1000, 32 << 10
	heap := &heapSamples{}
	f := newFakeModel(t, func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		heap.sample()
		return scripted(req)
	})
	src := &longSource{n: n, size: size, heap: heap}
	e := b.openEnv(t, b.Place(t), nil, f.model(t), observe.Config{MaxRounds: 2})
	// scripted echoes each 32 KiB turn, an answer past the default
	// max_tokens (MaxAnswerBytesPerToken): this test's answers may be large.
	o, err := observe.New(observe.Config{DB: e.db, Journal: e.j, Source: src, Model: f.model(t), MaxRounds: 2, MaxAnswerTokens: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	before := heapNow()
	p, err := o.Plan(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	heap.sample() // holding the plan
	if p.PendingTurns != n-observe.DefaultRecentN || len(p.Next) == 0 || !p.Due {
		t.Fatalf("plan: %d turns pending, next %d, due %v", p.PendingTurns, len(p.Next), p.Due)
	}
	runtime.KeepAlive(p)
	res, err := o.Observe(ctx, "big", observe.Options{NoReflect: true})
	if err != nil || len(res.Observations) != 2 || !res.MaxRoundsReached {
		t.Fatalf("observe: %v, %+v (want 2 observations, stopped at MaxRounds)", err, res)
	}
	if _, _, err := o.ObserveRange(ctx, "big", res.Pending.Next[0].Seq, res.Pending.Next[0].Seq+1); err != nil {
		t.Fatal(err)
	}
	if f.count() != 3 {
		t.Fatalf("%d model calls, want 3", f.count())
	}
	grew, most := int64(heap.max)-int64(before), int64(n*size/4)
	t.Logf("the live heap grew by %d bytes over a thread of %d bytes of content", grew, n*size)
	if grew > most {
		t.Errorf("the live heap grew by %d bytes on a thread of %d bytes of content, want at most %d", grew, n*size, most)
	}
}
