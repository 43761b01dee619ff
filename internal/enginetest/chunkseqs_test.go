package enginetest

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func TestChunkSeq(t *testing.T) {
	prompt := "<conversation time_zone=\"UTC\">\n" +
		`{"seq":7,"role":"user","content":"a line with \"seq\":99 inside"}` + "\n" +
		`{"seq":8,"role":"assistant","content":"b"}` + "\n" +
		`{"seq":9,"role":"tool","content":"c","toolCallId":"x"}` + "\n</conversation>"
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "system", Content: "rules"}, {Role: "user", Content: prompt}}}
	for _, c := range []struct {
		req  openai.ChatCompletionRequest
		i    int
		want int64
	}{
		{req, 0, 7}, {req, 2, 9}, {req, 5, 9},
		{openai.ChatCompletionRequest{}, 0, 0},
		{openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Content: "<observations>\n</observations>"}}}, 0, 0},
	} {
		if got := ChunkSeq(c.req, c.i); got != c.want {
			t.Errorf("ChunkSeq(…, %d) = %d, want %d", c.i, got, c.want)
		}
	}
}
