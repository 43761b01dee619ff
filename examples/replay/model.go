package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// startScriptedModel serves an OpenAI-compatible chat endpoint on loopback
// whose "model" is a deterministic reader: it answers with the sentence of
// the prompt (system part and earlier messages) that shares the most content
// words with the last user message, or "I don't know." when none shares two.
func startScriptedModel() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer := read(req.Messages)
		resp := openai.ChatCompletionResponse{
			ID: "scripted", Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{Index: 0, FinishReason: openai.FinishReasonStop,
				Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answer}}},
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?]\s+|\n+`)
	wordRe      = regexp.MustCompile(`[a-z0-9]+`)
	// recalledMarker is the "[recalled · thread … · seq … · date]" prefix of
	// recalled turns.
	recalledMarker = regexp.MustCompile(`^\[recalled[^\]]*\]\s*`)
	stop           = map[string]bool{"what": true, "which": true, "that": true, "this": true, "with": true, "from": true,
		"your": true, "have": true, "there": true, "about": true, "were": true, "would": true, "could": true, "should": true, "when": true}
)

func read(msgs []openai.ChatCompletionMessage) string {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return "I don't know."
	}
	q := contentWords(msgs[last].Content)
	best, bestScore := "", 1
	for i, m := range msgs {
		if i == last || m.Content == msgs[last].Content {
			continue
		}
		for _, s := range sentenceEnd.Split(recalledMarker.ReplaceAllString(m.Content, ""), -1) {
			n := 0
			for w := range contentWords(s) {
				if q[w] {
					n++
				}
			}
			if n > bestScore {
				best, bestScore = strings.TrimSpace(s), n
			}
		}
	}
	if best == "" {
		return "I don't know."
	}
	return best
}

func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if len(w) > 3 && !stop[w] {
			out[w] = true
		}
	}
	return out
}

// TokenOverlap is the F1 of the two texts' lowercased word tokens (the
// SQuAD-style overlap score): 1 for the same bag of words, 0 for none shared.
func TokenOverlap(a, b string) float64 {
	ta, tb := wordRe.FindAllString(strings.ToLower(a), -1), wordRe.FindAllString(strings.ToLower(b), -1)
	if len(ta) == 0 && len(tb) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, w := range ta {
		count[w]++
	}
	common := 0
	for _, w := range tb {
		if count[w] > 0 {
			common++
			count[w]--
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(tb)), float64(common)/float64(len(ta))
	return 2 * p * r / (p + r)
}
