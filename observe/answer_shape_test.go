package observe_test

import (
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// finished is a reply whose one choice says content with finish reason why.
func finished(content string, why openai.FinishReason) openaitest.Reply {
	return openaitest.Reply{Response: openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
		Message: openai.ChatCompletionMessage{Content: content}, FinishReason: why}}}}
}

func TestAnswerShapes(t *testing.T) { forEachBackend(t, testAnswerShapes) }

// testAnswerShapes is obs62 item 3: answers an endpoint sends that hold
// no usable text. A tool call instead of text, a content filter and a
// choiceless answer each said only "model returned an empty answer", an
// answer cut at max_tokens "malformed answer: unexpected EOF". Each now
// says what the endpoint did and what to change; each is one call (no
// retry), stores nothing and leaves the watermark, and the next call with
// a usable answer observes the range. An answer cut at max_tokens whose
// JSON is whole is kept.
func testAnswerShapes(t *testing.T, b backend) {
	good := `{"observations": [{"text": "Ana keeps bees.", "seqs": [1]}]}`
	for _, c := range []struct {
		name  string
		reply openaitest.Reply
		is    error  // nil: stored
		says  string // in the error
	}{
		{"tool calls", openaitest.Calls(openaitest.ToolCall("c1", "save_observations", good)), observe.ErrMalformedAnswer, `1 tool call(s) (the first: "save_observations") instead of the JSON text`},
		{"cut at max_tokens", finished(`{"observations": [{"text": "Ana keeps be`, openai.FinishReasonLength), observe.ErrMalformedAnswer, "cut at max_tokens (4096 tokens asked"},
		{"content filter", finished("", openai.FinishReasonContentFilter), observe.ErrEmptyAnswer, "content filter withheld the answer"},
		{"no choice", openaitest.Reply{Response: openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{}}}, observe.ErrEmptyAnswer, "holds no choice"},
		{"whole at max_tokens", finished("```json\n"+good+"\n```", openai.FinishReasonLength), nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeModel(t, text(good))
			src := &memSource{}
			src.add("t", 10, user("Ana keeps bees."), assistant("Noted."))
			e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{RecentN: -1, Threshold: 10, ChunkTokens: 100})
			f.srv.Enqueue(c.reply)
			res, err := e.obs.Observe(ctx, "t", observe.Options{})
			if c.is == nil {
				if err != nil || len(res.Observations) != 1 {
					t.Fatalf("err %v, %d observations; want one stored", err, len(res.Observations))
				}
				return
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err %v, want %v saying %q", err, c.is, c.says)
			}
			if n := f.count(); n != 1 || watermark(t, e, "t") != 0 || len(res.Observations) != 0 {
				t.Fatalf("%d calls, watermark %d, %d stored; want 1, 0, 0", n, watermark(t, e, "t"), len(res.Observations))
			}
			if res, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Observations) != 1 {
				t.Fatalf("the next call: err %v, %d observations; want the range observed", err, len(res.Observations))
			}
		})
	}
}
