package observe_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// scripted is a deterministic stand-in for an observer/reflector model: for
// the observer it writes one item per turn ("<role> said: <content>") citing
// its seq; for the reflector one item per input observation citing its id.
// It never follows instructions found in the data.
func scripted(req openai.ChatCompletionRequest) (int, string, time.Duration) {
	user := req.Messages[len(req.Messages)-1].Content
	lines := strings.Split(user, "\n")
	if strings.HasPrefix(user, "<conversation") {
		type item struct {
			Text string  `json:"text"`
			Seqs []int64 `json:"seqs"`
		}
		var items []item
		for _, l := range lines[1 : len(lines)-1] {
			var t struct {
				Seq     int64  `json:"seq"`
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal([]byte(l), &t); err != nil {
				return 200, "not json: " + err.Error(), 0
			}
			if t.Content == "" {
				continue
			}
			items = append(items, item{Text: fmt.Sprintf("%s said: %s", t.Role, t.Content), Seqs: []int64{t.Seq}})
		}
		b, _ := json.Marshal(map[string]any{"observations": items})
		return 200, string(b), 0
	}
	type item struct {
		Text    string   `json:"text"`
		Sources []string `json:"sources"`
	}
	var items []item
	for _, l := range lines[1 : len(lines)-1] {
		var o struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			return 200, "not json", 0
		}
		items = append(items, item{Text: "condensed: " + strings.ReplaceAll(o.Text, "\n", " "), Sources: []string{o.ID}})
	}
	b, _ := json.Marshal(map[string]any{"reflection": items})
	return 200, string(b), 0
}
