package observe_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// namedModel is f's model under the name name (f.model's is
// fake-observer).
func namedModel(t *testing.T, f *fakeModel, name string) *observe.OpenAIModel {
	t.Helper()
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: f.url, APIKey: openaitest.DefaultAPIKey, Model: name, Backoff: time.Millisecond, Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSkipRetriedUnderAnotherModel(t *testing.T) {
	forEachBackend(t, testSkipRetriedUnderAnotherModel)
}

// testSkipRetriedUnderAnotherModel is obs70 item 2: a skip's key names no
// model, so a changed observe.model kept it for good (only an erasure
// cleared it). Now a skip records its model, and an observer under
// another model sends the skipped turns again, once: model c refuses them
// too (one request, recorded: not sent again by it, in this process or
// the next), model b takes them (the skip replaced by its observation),
// and model a, which skipped them, never sends them again.
func testSkipRetriedUnderAnotherModel(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	fa := newFakeModel(t, moderated("Mallory"))
	ea := b.openEnv(t, place, src, namedModel(t, fa, "model-a"), cfg)
	if res, err := ea.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 || res.Skipped[0].Model != "model-a" {
		t.Fatalf("model a: %+v, %v; want seq 3 skipped under model-a", res, err)
	}
	// Model d refuses every content, a probe's too: nothing recorded.
	fd := newFakeModel(t, moderated(""))
	ed := b.openEnv(t, place, src, namedModel(t, fd, "model-d"), cfg)
	if _, err := ed.obs.Observe(ctx, "t", observe.Options{}); err != nil || flaggedCalls(fd, "Mallory") != 1 {
		t.Fatalf("model d: %v, the skipped turn sent %d times, want once", err, flaggedCalls(fd, "Mallory"))
	}
	if _, err := ed.j.Recorded(ctx, journal.ScopeMemo, observe.MemoPrefix("t")+"skipretried|3|3|model-d"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("model d's refusal recorded (%v): an endpoint refusing every content must not spend the retry", err)
	}
	if bo := ed.obs.Backoffs(""); len(bo) != 1 || bo[0].Call != observe.BackoffModel {
		t.Fatalf("model d: Backoffs %+v, want the endpoint's", bo)
	}
	// Model c refuses them too: sent once, whatever the processes.
	fc := newFakeModel(t, moderated("Mallory"))
	for i := range 2 {
		ec := b.openEnv(t, place, src, namedModel(t, fc, "model-c"), cfg)
		for range 2 {
			clock.add(time.Minute)
			src.add("t", 10, user("Ana buys a hive."), assistant("Noted."))
			if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil {
				t.Fatalf("model c, process %d: %v", i+1, err)
			}
		}
		if got := flaggedCalls(fc, "Mallory"); got != 1 {
			t.Fatalf("model c, process %d: the skipped turn sent %d times, want once", i+1, got)
		}
	}
	if sk, err := observe.Skips(ctx, ea.db, "t"); err != nil || len(sk) != 1 || sk[0].Model != "model-a" {
		t.Fatalf("Skips after model c = %+v, %v; want the skip under model-a", sk, err)
	}
	// Model a sends it no more.
	sent := flaggedCalls(fa, "Mallory")
	ea = b.openEnv(t, place, src, namedModel(t, fa, "model-a"), cfg)
	if _, err := ea.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil || flaggedCalls(fa, "Mallory") != sent {
		t.Fatalf("model a again: %v, the skipped turn sent %d more times, want none", err, flaggedCalls(fa, "Mallory")-sent)
	}
	// Model b takes them: the skip becomes an observation.
	fb := newFakeModel(t, copying(false))
	eb := b.openEnv(t, place, src, namedModel(t, fb, "model-b"), cfg)
	res, err := eb.obs.Observe(ctx, "t", observe.Options{})
	if err != nil || len(res.Observations) == 0 || rangeOf(res.Observations[0]) != "3..3" || !strings.Contains(res.Observations[0].Content, "Mallory") {
		t.Fatalf("model b: %+v, %v; want 3..3 observed first", res, err)
	}
	if sk, err := observe.Skips(ctx, eb.db, "t"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips after model b = %+v, %v; want none", sk, err)
	}
	if _, err := eb.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil || flaggedCalls(fb, "Mallory") != 1 {
		t.Fatalf("model b again: %v, the turn sent %d times, want once", err, flaggedCalls(fb, "Mallory"))
	}
}
