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
)

func TestAnswerPastMaxTokens(t *testing.T) { forEachBackend(t, testAnswerPastMaxTokens) }

// testAnswerPastMaxTokens: an endpoint that ignores max_tokens and answers
// thousands of items (each within MaxItemChars) is refused as malformed,
// storing nothing; the same chunk answered within the bound is then
// stored. Before, the answer was stored whole as one observation (229 KB
// from 20,000 items under mnemo serve, up to the 8 MiB of an HTTP answer),
// carried by every later prompt of the thread.
func testAnswerPastMaxTokens(t *testing.T, b backend) {
	items := func(n int) func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		return func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
			var seqs []int64
			var said []string
			for _, l := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
				var turn struct {
					Seq     int64
					Content string
				}
				if json.Unmarshal([]byte(l), &turn) == nil && turn.Seq > 0 {
					seqs, said = append(seqs, turn.Seq), append(said, turn.Content)
				}
			}
			var out []map[string]any
			for i := range n {
				out = append(out, map[string]any{"text": fmt.Sprintf("%s, item %d", strings.Join(said, " "), i), "seqs": seqs})
			}
			body, _ := json.Marshal(map[string]any{"observations": out})
			return 200, string(body), 0
		}
	}
	f := newFakeModel(t, items(2000))
	src := &memSource{}
	src.add("t", 2, user("hello there"), assistant("hi"))
	cfg := observe.Config{Threshold: 1, RecentN: -1, MaxAnswerTokens: 1000}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)

	_, err := e.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if !errors.Is(err, observe.ErrMalformedAnswer) || !strings.Contains(err.Error(), "max_tokens") {
		t.Fatalf("an answer of 2,000 items past max_tokens 1000: %v, want ErrMalformedAnswer naming max_tokens", err)
	}
	if all := list(t, e, "t", true); len(all) != 0 {
		t.Fatalf("stored %d observations of an answer past max_tokens (%d bytes), want none", len(all), len(all[0].Content))
	}
	f.setAnswer(items(3))
	if _, err := e.obs.Observe(ctx, "t", observe.Options{NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	live := list(t, e, "t", false)
	if len(live) == 0 {
		t.Fatal("nothing stored of the answers of 3 items")
	}
	for _, o := range live {
		if !strings.Contains(o.Content, "item 2") || len(o.Content) > 1000 {
			t.Fatalf("live observation %+v, want an answer of 3 items", o)
		}
	}
}
