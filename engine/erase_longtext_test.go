package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// TestEraseQueryQuotesTail: a run's query that quotes an erased turn past
// its first msgstore.ErasedPrefix bytes (the part the erasure reads into
// memory) is still found: the erasure reads the whole texts from the rows
// before it deletes them. The run's memctx query is scrubbed and the
// working-memory version it wrote is invalidated, in another thread of the
// resource.
func TestEraseQueryQuotesTail(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		const secret = "Periwinkle-Ocelot-5518"
		long := strings.Repeat("a long preamble before the point. ", 8) + "my name is " + secret
		if strings.Contains(long[:msgstore.ErasedPrefix], secret) {
			t.Fatal("fixture: the quoted part must start past the prefix the erasure keeps")
		}
		appendTo(t, w.e, "a", "r", user("x", long))
		appendTo(t, w.e, "b", "r", user("", "hello"))
		w.run(engine.LoadRequest{RunID: "b-1", ThreadID: "b", RecentN: 1, Query: "my name is " + secret}, "call_0", `{"name":"`+secret+`"}`)
		appendTo(t, w.e, "b", "r", user("", "I have a cat"))
		w.run(engine.LoadRequest{RunID: "b-2", ThreadID: "b", RecentN: 1, Query: "I have a cat"}, "call_0", `{"pet":"cat"}`)
		res, err := w.e.DeleteMessages(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.WorkingMemoryInvalidated, 1; got != want {
			t.Errorf("WorkingMemoryInvalidated = %d, want %d", got, want)
		}
		rec, err := w.e.Journal().MemCtx(ctx, "b-1")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rec.Query, engine.ErasedPreview; got != want {
			t.Errorf("query of the run that quoted the erased turn = %q, want %q", got, want)
		}
		if rec, err := w.e.Journal().MemCtx(ctx, "b-2"); err != nil || rec.Query != "I have a cat" {
			t.Errorf("query of the other run = %q, %v; want it kept", rec.Query, err)
		}
		w.assertForgot("r", secret, `{"pet":"cat"}`)
	})
}

// TestEraseReadsTextsOnce: the working-memory check of an erasure asks
// about every run's query in one read of the erased texts, and the memctx
// scrub in one more, however many versions and records there are (each
// run's query read the texts again before).
func TestEraseReadsTextsOnce(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		appendTo(t, w.e, "a", "r", user("x", "an erased turn nobody quotes"))
		appendTo(t, w.e, "b", "r", user("", "hello"))
		for i, city := range []string{"Oslo", "Porto", "Lyon", "Turin", "Ghent"} {
			w.run(engine.LoadRequest{RunID: "b-" + city, ThreadID: "b", RecentN: 1, Query: "I moved to " + city}, "call_0", `{"city":"`+city+`"}`)
			appendTo(t, w.e, "b", "r", user("", "turn "+strings.Repeat("x", i)))
		}
		before := engine.TextReads(w.e)
		res, err := w.e.DeleteMessages(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.WorkingMemoryInvalidated, 0; got != want {
			t.Errorf("WorkingMemoryInvalidated = %d, want %d", got, want)
		}
		if got, want := engine.TextReads(w.e)-before, int64(2); got != want {
			t.Errorf("the erasure read the erased texts %d times, want %d (the working-memory check, the scrub)", got, want)
		}
	})
}
