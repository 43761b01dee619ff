package openaitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
)

// A program's offline mode: a scripted model on loopback, reached with the
// real go-openai client.
func ExampleStart() {
	srv := openaitest.Start(openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		last := req.Messages[len(req.Messages)-1].Content
		return openaitest.Text("You said: " + last).Response, nil
	}))
	defer srv.Close()

	resp, err := srv.Client().CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    "scripted",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hello"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Choices[0].Message.Content, resp.Choices[0].FinishReason)
	fmt.Println(len(srv.Violations()), "violations")
	// Output:
	// You said: hello stop
	// 0 violations
}

// A test queues replies; every request the code under test sends is checked
// against the API's rules and recorded.
func ExampleServer_Enqueue() {
	srv := openaitest.Start()
	defer srv.Close()
	srv.Enqueue(openaitest.Error(429, "slow down"))

	_, err := srv.Client().CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    "m",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}},
	})
	fmt.Println(err != nil, srv.Count(openaitest.PathChat))
	// Output: true 1
}

// The re-rank side: a scripted cross-encoder answering the re-rank path
// that recall.NewOpenAIReranker's "rerank" endpoint posts to.
func ExampleWithRerank() {
	srv := openaitest.Start(openaitest.WithRerank(func(req openaitest.RerankRequest) ([]float64, error) {
		scores := make([]float64, len(req.Documents))
		for i, d := range req.Documents {
			scores[i] = float64(len(d)) // results come back in document order, each with its score
		}
		return scores, nil
	}))
	defer srv.Close()

	body := `{"model":"m","query":"trains","documents":["a train","the night train to Porto"]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/rerank", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+openaitest.DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Config().HTTPClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var out struct {
		Results []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, out.Results, srv.RerankRequests()[0].Query, srv.Count(openaitest.PathRerank))
	// Output: 200 [{0 7} {1 24}] trains 1
}
