package observe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// lyonOnly answers as an observer that keeps only turns mentioning Lyon:
// an empty list for a chunk without one (walk37's scenario obsstuck).
func lyonOnly(req openai.ChatCompletionRequest) (int, string, time.Duration) {
	items := []map[string]any{}
	for _, l := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
		var t struct {
			Seq     int64  `json:"seq"`
			Content string `json:"content"`
		}
		if json.Unmarshal([]byte(l), &t) == nil && strings.Contains(t.Content, "Lyon") {
			items = append(items, map[string]any{"text": "The user said: " + t.Content, "seqs": []int64{t.Seq}})
		}
	}
	b, _ := json.Marshal(map[string]any{"observations": items})
	return 200, string(b), 0
}

func TestEmptyAnswerAdvances(t *testing.T) { forEachBackend(t, testEmptyAnswerAdvances) }

// testEmptyAnswerAdvances: a chunk the observer finds nothing in
// ({"observations":[]}) is observed: the watermark moves past it, the
// answer is memoized (no second call for it, before or after a reopen),
// and the chunks after it are observed, the Lyon turn among them. The
// empty observation is never listed as live, so neither the prompt nor
// the reflector sees it. Before, the empty list was ErrEmptyAnswer: the
// watermark stayed at 0 and every call sent the first chunk again.
func testEmptyAnswerAdvances(t *testing.T, b backend) {
	f := newFakeModel(t, lyonOnly)
	src := &memSource{}
	for i := range 3 {
		src.add("t", 10, user(fmt.Sprintf("small talk %d", i)), assistant("sure"))
	}
	src.add("t", 10, user("I live in Lyon and work as a baker."), assistant("noted"))
	src.add("t", 10, user("more small talk"), assistant("sure"))
	path := b.Place(t)
	cfg := observe.Config{Threshold: 20, ChunkTokens: 20, RecentN: -1}
	e := b.openEnv(t, path, src, f.model(t), cfg)

	res, err := e.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Observations), 5; got != want {
		t.Fatalf("stored %d observations, want %d (one per chunk)", got, want)
	}
	if got, want := f.count(), int64(5); got != want {
		t.Fatalf("model calls %d, want %d", got, want)
	}
	if got, want := watermark(t, e, "t"), int64(10); got != want {
		t.Fatalf("watermark %d, want %d", got, want)
	}
	live := list(t, e, "t", false)
	if len(live) != 1 || live[0].FromSeq != 7 || !strings.Contains(live[0].Content, "Lyon") {
		t.Fatalf("live observations %+v, want the Lyon chunk's only", live)
	}
	if all := list(t, e, "t", true); len(all) != 5 {
		t.Fatalf("all rows %d, want 5 (4 empty)", len(all))
	}
	if r, err := e.obs.Reflect(ctx, "t", true); err != nil || r != nil {
		t.Fatalf("reflection over one live observation and 4 empty ones: %+v, %v", r, err)
	}

	// Nothing pending: no call. A reopened observer over the same database
	// returns the recorded empty answer without calling the model.
	if _, err := e.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil || f.count() != 5 {
		t.Fatalf("second Observe: %v, calls %d", err, f.count())
	}
	f2 := newFakeModel(t, lyonOnly)
	e2 := b.openEnv(t, path, src, f2.model(t), cfg)
	o, raw, err := e2.obs.ObserveRange(ctx, "t", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if f2.count() != 0 || o.Content != "" || o.ID != res.Observations[0].ID {
		t.Fatalf("replayed range 1..2: calls %d, %+v", f2.count(), o)
	}
	if want := `{"version":"` + observe.ObserverPromptVersion + `","items":[]}`; string(raw) != want {
		t.Fatalf("recorded answer %s, want %s", raw, want)
	}
}

func TestCitationsChecked(t *testing.T) { forEachBackend(t, testCitationsChecked) }

// testCitationsChecked: walk37's scenario obsrange. An answer whose only
// item cites a seq outside the chunk stores nothing (it stored "The user
// lives in Lyon." for a chunk saying Paris); an answer repeating one item
// stores it once, citing the chunk's seqs only, and records what it
// dropped.
func testCitationsChecked(t *testing.T, b backend) {
	f := newFakeModel(t, text(`{"observations":[{"text":"The user lives in Lyon.","seqs":[999]}]}`))
	src := &memSource{}
	src.add("t", 10, user("I live in Paris."), assistant("ok"))
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{RecentN: -1})
	_, _, err := e.obs.ObserveRange(ctx, "t", 1, 2)
	if !errors.Is(err, observe.ErrEmptyAnswer) || !strings.Contains(err.Error(), "citing only seqs outside 1..2") {
		t.Fatalf("err = %v, want ErrEmptyAnswer naming the citations", err)
	}
	if got := list(t, e, "t", true); len(got) != 0 {
		t.Fatalf("stored %+v", got)
	}

	f.setAnswer(text(`{"observations":[{"text":"The user lives in Paris.","seqs":[1,999]},{"text":"The user lives in Paris.","seqs":[2]},{"text":"The user lives in Paris.","seqs":[1]}]}`))
	o, raw, err := e.obs.ObserveRange(ctx, "t", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if o.Content != "- The user lives in Paris." {
		t.Fatalf("content %q", o.Content)
	}
	var ans observe.Answer
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Items) != 1 || fmt.Sprint(ans.Items[0].Seqs) != "[1 2]" || ans.Dropped != (observe.Dropped{Citations: 1, Duplicates: 2}) {
		t.Fatalf("recorded %s", raw)
	}
}

func TestObservePartial(t *testing.T) { forEachBackend(t, testObservePartial) }

// testObservePartial: an Observe that stored an observation and then
// failed returns both, and its error matches ErrPartial as well as the
// cause; one that stored nothing does not match ErrPartial (walk37: 4
// observations stored and an error, which a caller read as failure).
func testObservePartial(t *testing.T, b backend) {
	f := newFakeModel(t, text(`not json`))
	f.srv.Enqueue(openaitest.Text(`{"observations":[{"text":"The user lives in Paris.","seqs":[1]}]}`))
	src := &memSource{}
	src.add("t", 10, user("I live in Paris."), assistant("ok"), user("I bake bread."), assistant("ok"))
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 20, ChunkTokens: 20, RecentN: -1})
	res, err := e.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if !errors.Is(err, observe.ErrPartial) || !errors.Is(err, observe.ErrMalformedAnswer) || len(res.Observations) != 1 {
		t.Fatalf("Observe: %d stored, err %v; want 1 and ErrPartial, ErrMalformedAnswer", len(res.Observations), err)
	}
	res, err = e.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if errors.Is(err, observe.ErrPartial) || !errors.Is(err, observe.ErrMalformedAnswer) || len(res.Observations) != 0 {
		t.Fatalf("Observe storing nothing: %d stored, err %v", len(res.Observations), err)
	}
}
