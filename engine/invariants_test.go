package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// The invariants every Context must satisfy, checked against the store (the
// authority) by checkInvariants:
//
//   - INV-PAIR: an OpenAI-style API accepts the messages: every assistant
//     tool-call message is immediately followed by exactly its results, in
//     call order, and no tool result appears anywhere else; each result
//     follows the call it truly answers (the pairing rule of pairing.go:
//     nearest call with its id before it, no other result for the id in
//     between), whatever ids the thread reuses.
//   - INV-UNIQ: no message appears twice.
//   - INV-MEMCTX: memctx lists exactly the messages of the prompt (recent
//     and recalled with their reasons, recentCount true), a dropped turn is
//     not in the prompt and is listed once, a turn dropped for pairing truly
//     cannot be paired, and every turn of the recent window is in the
//     prompt or dropped for pairing.
//   - every message is the stored one, of a thread of the run's resource.

// pairing is the true pairing of a thread's stored messages.
type pairing struct {
	byseq    map[int64]engine.Message
	callOf   map[int64]int64 // result seq -> call seq
	complete map[int64]bool  // assistant tool-call seq -> every call has its result
}

// truePairing applies the pairing rule to a thread's messages (seq order).
func truePairing(ms []engine.Message) pairing {
	p := pairing{byseq: map[int64]engine.Message{}, callOf: map[int64]int64{}, complete: map[int64]bool{}}
	open := map[string]int64{} // call id -> seq of the call awaiting its result
	answered := map[int64]int{}
	for _, m := range ms {
		p.byseq[m.Seq] = m
		if m.Role == engine.RoleTool {
			if c, ok := open[m.ToolCallID]; ok {
				p.callOf[m.Seq] = c
				answered[c]++
				delete(open, m.ToolCallID)
			}
			continue
		}
		for _, tc := range m.ToolCalls {
			open[tc.ID] = m.Seq
		}
	}
	for _, m := range ms {
		if len(m.ToolCalls) > 0 {
			p.complete[m.Seq] = answered[m.Seq] == len(m.ToolCalls)
		}
	}
	return p
}

// pairable reports whether the message at seq can go into a prompt: it is
// not a tool-call message or result, or its group is complete.
func (p pairing) pairable(seq int64) bool {
	m := p.byseq[seq]
	switch {
	case m.Role == engine.RoleTool:
		c, ok := p.callOf[seq]
		return ok && p.complete[c]
	case len(m.ToolCalls) > 0:
		return p.complete[seq]
	}
	return true
}

type threadSeq struct {
	thread string
	seq    int64
}

// checkInvariants fails t when c breaks an invariant above. recentN is the
// recent window the run asked for (> 0).
func checkInvariants(t testing.TB, e *engine.Engine, c *engine.Context, recentN int) {
	t.Helper()
	ctx := context.Background()
	rec := c.MemCtx
	truth := map[string]pairing{}
	load := func(thread string) pairing {
		if p, ok := truth[thread]; ok {
			return p
		}
		th, err := e.GetThread(ctx, thread)
		if err != nil {
			t.Fatalf("thread %s of the context: %v", thread, err)
		}
		if th.ResourceID != rec.ResourceID {
			t.Fatalf("context of resource %s holds thread %s of another resource", rec.ResourceID, thread)
		}
		ms, err := e.Messages(ctx, thread, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		truth[thread] = truePairing(ms)
		return truth[thread]
	}
	checkProviderRule(t, c.Messages)
	inPrompt := map[threadSeq]string{} // -> reason
	lastCall := -1
	for i, m := range c.Messages {
		k := threadSeq{m.ThreadID, m.Seq}
		if _, dup := inPrompt[k]; dup {
			t.Fatalf("INV-UNIQ: %s seq %d appears twice: %s", m.ThreadID, m.Seq, describe(c.Messages))
		}
		inPrompt[k] = m.Reason
		p := load(m.ThreadID)
		stored, ok := p.byseq[m.Seq]
		if !ok || stored.ID != m.MessageID || stored.Role != m.Role || !strings.HasSuffix(m.Content, stored.Content) {
			t.Fatalf("messages[%d] %s seq %d is not the stored message %+v", i, m.ThreadID, m.Seq, stored)
		}
		if (m.Reason == "") != (m.Content == stored.Content) {
			t.Fatalf("messages[%d] reason %q but content %q", i, m.Reason, m.Content)
		}
		if m.Role != engine.RoleTool {
			lastCall = i
			continue
		}
		call := c.Messages[lastCall]
		if want, ok := p.callOf[m.Seq]; !ok || call.ThreadID != m.ThreadID || call.Seq != want {
			t.Fatalf("INV-PAIR: result %s seq %d follows call seq %d, but answers seq %d (paired %v): %s",
				m.ThreadID, m.Seq, call.Seq, want, ok, describe(c.Messages))
		}
	}
	checkMemCtx(t, c, inPrompt)
	for _, d := range rec.Dropped {
		if d.Reason != journal.ReasonUnpairedToolCall && d.Reason != journal.ReasonOrphanToolResult {
			continue
		}
		if load(d.ThreadID).pairable(d.Seq) {
			t.Fatalf("INV-MEMCTX: %s seq %d dropped as %s but its group is complete", d.ThreadID, d.Seq, d.Reason)
		}
	}
	// The recent window: each of the thread's last recentN messages is in
	// the prompt, or dropped because it cannot be paired.
	dropped := map[threadSeq]bool{}
	for _, d := range rec.Dropped {
		dropped[threadSeq{d.ThreadID, d.Seq}] = true
	}
	if _, err := e.GetThread(ctx, rec.ThreadID); errors.Is(err, engine.ErrThreadNotFound) {
		return // a thread with no messages yet: nothing recent (recall may still answer)
	}
	p := load(rec.ThreadID)
	ms, err := e.Messages(ctx, rec.ThreadID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := max(len(ms)-recentN, 0); i < len(ms); i++ {
		k := threadSeq{rec.ThreadID, ms[i].Seq}
		reason, in := inPrompt[k]
		switch {
		case in && reason == "":
		case dropped[k] && !p.pairable(ms[i].Seq):
		default:
			t.Fatalf("INV-MEMCTX: recent seq %d is neither in the recent window (in=%v reason %q) nor dropped as unpairable: %s",
				ms[i].Seq, in, reason, describe(c.Messages))
		}
	}
}

// checkMemCtx compares the memctx lists with the prompt's messages.
func checkMemCtx(t testing.TB, c *engine.Context, inPrompt map[threadSeq]string) {
	t.Helper()
	rec := c.MemCtx
	recent := 0
	for _, m := range c.Messages {
		if m.Reason == "" {
			recent++
		}
	}
	if rec.RecentCount != recent || (recent <= journal.RecentCap && len(rec.Recent) != recent) {
		t.Fatalf("INV-MEMCTX: recentCount %d, listed %d, prompt has %d recent", rec.RecentCount, len(rec.Recent), recent)
	}
	listed := map[threadSeq]bool{}
	for _, r := range append(append([]journal.Ref(nil), rec.Recent...), rec.Recalled...) {
		k := threadSeq{r.ThreadID, r.Seq}
		if listed[k] {
			t.Fatalf("INV-MEMCTX: %s seq %d listed twice", r.ThreadID, r.Seq)
		}
		listed[k] = true
		if reason, ok := inPrompt[k]; !ok || reason != r.Reason {
			t.Fatalf("INV-MEMCTX: memctx lists %s seq %d (%q), prompt has it %v (%q)", r.ThreadID, r.Seq, r.Reason, ok, reason)
		}
	}
	for k, reason := range inPrompt {
		if reason != "" && !listed[k] {
			t.Fatalf("INV-MEMCTX: recalled %s seq %d is not in memctx.recalled", k.thread, k.seq)
		}
	}
	if rec.DroppedCount != len(rec.Dropped) {
		t.Fatalf("INV-MEMCTX: droppedCount %d, listed %d", rec.DroppedCount, len(rec.Dropped))
	}
	seen := map[threadSeq]bool{}
	for _, d := range rec.Dropped {
		if d.Role == "observation" || d.Role == "reflection" { // an observation cut by the budget
			continue
		}
		k := threadSeq{d.ThreadID, d.Seq}
		if _, in := inPrompt[k]; in && d.Reason != journal.ReasonAlreadyInRecent {
			t.Fatalf("INV-MEMCTX: %s seq %d is dropped (%s) and in the prompt", d.ThreadID, d.Seq, d.Reason)
		}
		if seen[k] {
			t.Fatalf("INV-MEMCTX: %s seq %d dropped twice: %+v", d.ThreadID, d.Seq, rec.Dropped)
		}
		seen[k] = true
	}
}

func describe(msgs []engine.ContextMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s:%d:%s", m.ThreadID, m.Seq, m.Role)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "→%s", tc.ID)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, "←%s", m.ToolCallID)
		}
		if m.Reason != "" {
			fmt.Fprintf(&b, "(%s)", m.Reason)
		}
		b.WriteString(" ")
	}
	return b.String()
}
