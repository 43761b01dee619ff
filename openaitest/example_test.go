package openaitest_test

import (
	"context"
	"fmt"

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
