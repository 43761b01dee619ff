package synth_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

func TestNew(t *testing.T) {
	t.Run("ErrInvalidConfig", func(t *testing.T) {
		for _, cfg := range []synth.Config{{}, {Messages: -1}, {Messages: 5, Resources: 6}, {Messages: 5, ThreadMessages: -1}} {
			if _, err := synth.New(cfg); !errors.Is(err, synth.ErrInvalidConfig) {
				t.Errorf("New(%+v) err=%v, want ErrInvalidConfig", cfg, err)
			}
		}
	})
	t.Run("Layout", func(t *testing.T) {
		for _, cfg := range []synth.Config{{Messages: 10_000}, {Messages: 10_001, Resources: 7}, {Messages: 3, Resources: 3}, {Messages: 250, Resources: 1, ThreadMessages: 7}} {
			c, err := synth.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			total, perRes := 0, map[string]int{}
			for th := range c.All() {
				total += len(th.Messages)
				perRes[th.ResourceID] += len(th.Messages)
				if !strings.HasPrefix(th.ID, th.ResourceID+".") {
					t.Fatalf("thread %s outside its resource %s", th.ID, th.ResourceID)
				}
			}
			if got, want := total, cfg.Messages; got != want {
				t.Errorf("%+v: %d messages, want %d", cfg, got, want)
			}
			if got, want := len(perRes), c.Resources(); got != want {
				t.Errorf("%+v: %d resources with messages, want %d", cfg, got, want)
			}
			lo, hi := cfg.Messages, 0
			for _, n := range perRes {
				lo, hi = min(lo, n), max(hi, n)
			}
			if hi-lo > 1 {
				t.Errorf("%+v: resources hold %d..%d messages, want an even spread", cfg, lo, hi)
			}
		}
	})
	t.Run("DefaultResources", func(t *testing.T) {
		c, err := synth.New(synth.Config{Messages: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Resources(), 100; got != want {
			t.Errorf("resources=%d, want %d", got, want)
		}
	})
}

func TestDeterministic(t *testing.T) {
	a, _ := synth.New(synth.Config{Messages: 2000, Resources: 4})
	b, _ := synth.New(synth.Config{Messages: 2000, Resources: 4})
	other, _ := synth.New(synth.Config{Messages: 2000, Resources: 4, Seed: 2})
	// Random access gives what sequential generation gives.
	var seq []synth.Thread
	for th := range a.All() {
		seq = append(seq, th)
	}
	for i := len(seq) - 1; i >= 0; i-- {
		if !reflect.DeepEqual(seq[i], b.Thread(i)) {
			t.Fatalf("thread %d differs between two corpora of one config", i)
		}
	}
	if reflect.DeepEqual(seq[0].Messages[0].Content, other.Thread(0).Messages[0].Content) {
		t.Errorf("seed 2 gave the same first message as seed 1")
	}
	if got, want := a.Query(17, 3), b.Query(17, 3); got != want {
		t.Errorf("query 17: %+v vs %+v", got, want)
	}
}

func TestShape(t *testing.T) {
	c, _ := synth.New(synth.Config{Messages: 20_000, Resources: 5})
	words := map[string][]int{}
	var tools, calls int
	vocab := map[string]bool{}
	for th := range c.All() {
		if th.Messages[0].Role != engine.RoleUser {
			t.Fatalf("thread %s starts with %s", th.ID, th.Messages[0].Role)
		}
		for i, m := range th.Messages {
			words[m.Role] = append(words[m.Role], len(strings.Fields(m.Content)))
			for _, w := range strings.Fields(m.Content) {
				vocab[strings.ToLower(strings.Trim(w, ".?"))] = true
			}
			if len(m.ToolCalls) > 0 {
				calls++
				// Every call is answered right after, in order.
				for j, tc := range m.ToolCalls {
					r := th.Messages[i+1+j]
					if r.Role != engine.RoleTool || r.ToolCallID != tc.ID {
						t.Fatalf("%s: call %s not answered at %d", m.ID, tc.ID, i+1+j)
					}
				}
			}
			if m.Role == engine.RoleTool {
				tools++
			}
		}
	}
	median := func(xs []int) int { slices.Sort(xs); return xs[len(xs)/2] }
	if m := median(words[engine.RoleUser]); m < 10 || m > 25 {
		t.Errorf("user turns: median %d words, want 10..25", m)
	}
	if m := median(words[engine.RoleAssistant]); m < 20 || m > 60 {
		t.Errorf("assistant turns: median %d words, want 20..60", m)
	}
	if frac := float64(calls) / 20_000; frac < 0.03 || frac > 0.15 {
		t.Errorf("tool-call messages are %.3f of the corpus, want 0.03..0.15", frac)
	}
	if tools < calls {
		t.Errorf("%d tool results for %d calling messages", tools, calls)
	}
	if len(vocab) < 2000 {
		t.Errorf("vocabulary of %d words, want >= 2000 (entities and identifiers included)", len(vocab))
	}
}

func TestQuery(t *testing.T) {
	c, _ := synth.New(synth.Config{Messages: 3000, Resources: 6})
	byID := map[string]engine.Message{}
	for th := range c.All() {
		for _, m := range th.Messages {
			byID[m.ID] = m
		}
	}
	for i := range 50 {
		q := c.Query(i, 2)
		if q.ResourceID != synth.ResourceID(0) && q.ResourceID != synth.ResourceID(1) {
			t.Fatalf("query %d in %s, want one of the first 2 resources", i, q.ResourceID)
		}
		src, ok := byID[q.Target]
		if !ok || !strings.HasPrefix(q.Target, q.ResourceID+".") || !strings.HasPrefix(q.ThreadID, q.ResourceID+".") {
			t.Fatalf("query %d: %+v targets outside its resource", i, q)
		}
		for _, w := range strings.Fields(q.Text) {
			if !strings.Contains(src.Content, w) {
				t.Fatalf("query %d word %q not in its target %q", i, w, src.Content)
			}
		}
	}
}

// TestAppend stores a small corpus in a real engine: every message is
// accepted and the tool-call groups pass validation.
func TestAppend(t *testing.T) {
	c, _ := synth.New(synth.Config{Messages: 600, Resources: 3, ThreadMessages: 40})
	e := enginetest.MustOpen(t, engine.Config{})
	ctx := context.Background()
	n := 0
	for th := range c.All() {
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.ID, ResourceID: th.ResourceID, Messages: th.Messages})
		if err != nil {
			t.Fatalf("append %s: %v", th.ID, err)
		}
		n += res.Stored
	}
	if got, want := n, 600; got != want {
		t.Fatalf("stored %d, want %d", got, want)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	q := c.Query(0, 0)
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.ResourceID, Query: q.Text})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range res.Hits {
		found = found || h.MessageID == q.Target
	}
	if !found {
		t.Errorf("search %q did not find its target %s among %d hits", q.Text, q.Target, len(res.Hits))
	}
}

// TestThreadDates checks the thread starts: one day apart in a resource of
// up to SpanDays threads, and spread over SpanDays days in a larger one, so
// that a 1M-message resource's last message is dated before Start +
// SpanDays + a day (engine.Append refuses dates ahead of the clock).
func TestThreadDates(t *testing.T) {
	const day = 24 * time.Hour
	end := synth.Start.Add((synth.SpanDays + 1) * day)
	for _, tc := range []struct {
		name       string
		cfg        synth.Config
		wantOneDay bool
	}{
		{"10k over 10", synth.Config{Messages: 10_000, Resources: 10}, true},
		{"100k in one", synth.Config{Messages: 100_000, Resources: 1}, false},
		{"1m in one", synth.Config{Messages: 1_000_000, Resources: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := synth.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts := c.ResourceThreads(0)
			first, second, last := c.Thread(ts[0]), c.Thread(ts[1]), c.Thread(ts[len(ts)-1])
			// The first turn comes 20–120 s after its thread's start.
			gap := second.Messages[0].CreatedAt.Sub(first.Messages[0].CreatedAt)
			if oneDay := gap > day-2*time.Minute && gap < day+2*time.Minute; oneDay != tc.wantOneDay {
				t.Errorf("%d threads: gap between the first two threads %v, want one day: %v", len(ts), gap, tc.wantOneDay)
			}
			at := last.Messages[len(last.Messages)-1].CreatedAt
			if !at.Before(end) {
				t.Errorf("%d threads: last message dated %v, after %v", len(ts), at, end)
			}
			prev := first.Messages[0].CreatedAt
			for _, i := range ts[1:min(len(ts), 50)] {
				th := c.Thread(i)
				if s := th.Messages[0].CreatedAt; !s.After(prev) {
					t.Fatalf("thread %s starts %v, not after the one before (%v)", th.ID, s, prev)
				}
				prev = th.Messages[0].CreatedAt
			}
		})
	}
}
