package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// exampleEngine opens an engine in a fresh directory with the offline
// hash-384 embedder and a fixed clock; done closes it and removes the directory.
func exampleEngine(cfg engine.Config) (e *engine.Engine, done func()) {
	dir, _ := os.MkdirTemp("", "mnemo-example-")
	cfg.Dir, cfg.Embedder = dir, recall.HashEmbedder{}
	cfg.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return e, func() { e.Close(); os.RemoveAll(dir) }
}

// Open a data directory (created when missing). Embedder is optional: without
// it the engine uses use-lite when its weights are installed, else hash-384.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mnemo-example-")
	defer os.RemoveAll(dir)

	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	defer e.Close()
	fmt.Println("opened")
	// Output:
	// opened
}

// Append stores messages at the end of a thread (created on first use) and
// returns their seqs; a retried message with the same id is not stored twice.
func ExampleEngine_Append() {
	e, done := exampleEngine(engine.Config{})
	defer done()
	ctx := context.Background()

	res, _ := e.Append(ctx, engine.AppendRequest{ThreadID: "chat-1", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "I live in Lisbon"},
		{Role: engine.RoleAssistant, Content: "Noted!"},
	}})
	fmt.Println("created:", res.Created, "seqs:", res.Seqs, "stored:", res.Stored)

	// A retry of the first message, under the id it was given: a duplicate.
	retry := []engine.Message{{ID: res.IDs[0], Role: engine.RoleUser, Content: "I live in Lisbon"}}
	res, _ = e.Append(ctx, engine.AppendRequest{ThreadID: "chat-1", ResourceID: "ana", Messages: retry})
	fmt.Println("stored:", res.Stored, "duplicates:", res.Duplicates)
	// Output:
	// created: true seqs: [1 2] stored: 2
	// stored: 0 duplicates: 1
}

// LoadContext composes the memory part of the next prompt: turns recalled
// for the query (with their reason), then the thread's recent window.
func ExampleEngine_LoadContext() {
	e, done := exampleEngine(engine.Config{})
	defer done()
	ctx := context.Background()
	say := func(thread, role, text string) {
		e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "ana",
			Messages: []engine.Message{{Role: role, Content: text}}})
	}
	say("trip", engine.RoleUser, "My passport number is X1234")
	say("chat", engine.RoleUser, "Hello again")

	c, _ := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "chat", ResourceID: "ana",
		Query: "what is my passport number?", Recall: &recall.Options{TopK: 1}})
	for _, m := range c.Messages {
		fmt.Printf("%s #%d %s %q: %s\n", m.ThreadID, m.Seq, m.Role, m.Reason, m.Content)
	}
	// Output:
	// trip #1 user "hit": [recalled · thread trip · seq 1 · 2026-12-01 09:00 UTC] My passport number is X1234
	// chat #1 user "": Hello again
}

// Replay rebuilds a past run's prompt from its memctx record; a
// counterfactual replay shows what the prompt would have been without,
// say, the recalled turns.
func ExampleEngine_Replay() {
	e, done := exampleEngine(engine.Config{})
	defer done()
	ctx := context.Background()
	e.Append(ctx, engine.AppendRequest{ThreadID: "trip", ResourceID: "ana",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "My passport number is X1234"}}})
	e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "Hello again"}}})
	c, _ := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "chat", ResourceID: "ana",
		Query: "what is my passport number?", Recall: &recall.Options{TopK: 1}})

	r, err := e.Replay(ctx, "run-1", engine.ReplayOptions{WithoutRecalled: true})
	if err != nil { // errors.Is(err, engine.ErrReplayDiverged): the store changed
		fmt.Println(err)
		return
	}
	fmt.Println("reproduced:", r.Original.PromptHash == c.PromptHash)
	fmt.Println("messages:", len(r.Original.Messages), "without recall:", len(r.Counterfactual.Messages), "removed:", len(r.Removed))
	// Output:
	// reproduced: true
	// messages: 2 without recall: 1 removed: 1
}

// HandleToolCall applies a tool call the model made (here an update of
// working memory) once per run and call id, and returns the tool message.
// One tool turn in order (docs/library.md, "A tool turn"): append the
// assistant message making the call, converted from go-openai's, then
// handle the call, then append its result; the next context pairs them.
func ExampleEngine_HandleToolCall() {
	e, done := exampleEngine(engine.Config{WorkingMemory: &working.Config{
		Mode: working.ModeTemplate, Scope: working.ScopeThread, Template: "# Notes\n"}})
	defer done()
	ctx := context.Background()
	appendTo := func(m engine.Message) {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana", Messages: []engine.Message{m}}); err != nil {
			fmt.Println(err)
		}
	}
	appendTo(engine.Message{Role: engine.RoleUser, Content: "Call me Ana, I'm vegetarian"})

	// The model's answer: one call of the working-memory tool.
	call := openai.ToolCall{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{
		Name: tools.UpdateWorkingMemoryName, Arguments: `{"memory":"# Notes\n- name: Ana\n- vegetarian"}`}}
	appendTo(engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{
		ID: call.ID, Name: call.Function.Name, Arguments: engine.ToolCallArguments(call.Function.Arguments)}}})
	msg, err := e.HandleToolCall(ctx, "run-1", "chat", "ana", call)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Role, msg.ToolCallID, msg.Content)
	appendTo(engine.Message{Role: engine.RoleTool, ToolCallID: msg.ToolCallID, Name: call.Function.Name, Content: msg.Content})

	// The next prompt carries the working memory in its system part, and
	// the call with its result.
	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "chat", ResourceID: "ana"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(c.System, "- vegetarian"))
	for _, m := range c.OpenAIMessages("You are a helpful assistant.")[1:] {
		fmt.Printf("%s: %d call(s), answers %q\n", m.Role, len(m.ToolCalls), m.ToolCallID)
	}
	// Output:
	// tool call_1 {"ok":true,"version":1}
	// true
	// user: 0 call(s), answers ""
	// assistant: 1 call(s), answers ""
	// tool: 0 call(s), answers "call_1"
}

// DeleteThread erases a thread and everything derived from it (index
// entries, runs, working memory); the thread id can be used again.
func ExampleEngine_DeleteThread() {
	e, done := exampleEngine(engine.Config{})
	defer done()
	ctx := context.Background()
	e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "My card ends in 4242"},
		{Role: engine.RoleAssistant, Content: "Thanks"},
	}})
	e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "chat", ResourceID: "ana"})

	res, _ := e.DeleteThread(ctx, "chat")
	fmt.Println("threads:", res.Threads, "messages:", len(res.Messages), "runs:", res.Runs)
	_, err := e.DeleteThread(ctx, "chat")
	fmt.Println(errors.Is(err, engine.ErrThreadNotFound))
	// Output:
	// threads: [chat] messages: 2 runs: 1
	// true
}

// Observe distils the turns older than the recent window (Config.RecentN)
// into observations with the observer model: here the in-process
// openaitest server, which answers as a model must, a JSON object
// {"observations": [{"text": …, "seqs": [the turns it comes from]}]}.
// Turns inside the recent window are never observed, so with the default
// RecentN of 10 this four-turn thread would give none. LoadContext then
// renders the observations into the system part.
func ExampleEngine_Observe() {
	srv := openaitest.Start(openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(`{"observations": [{"text": "The user lives in Lyon.", "seqs": [1]}]}`).Response, nil
	}))
	defer srv.Close()
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "observer"})
	if err != nil {
		fmt.Println("model:", err)
		return
	}
	e, done := exampleEngine(engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: model}})
	defer done()
	ctx := context.Background()
	e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "I live in Lyon."}, {Role: engine.RoleAssistant, Content: "Noted."},
		{Role: engine.RoleUser, Content: "Book the night train."}, {Role: engine.RoleAssistant, Content: "Booked."}}})

	// Force: observe now, below the token threshold (30,000 by default).
	res, err := e.Observe(ctx, "chat", observe.Options{Force: true})
	if err != nil {
		fmt.Println("observe:", err)
		return
	}
	for _, o := range res.Observations {
		fmt.Printf("seq %d-%d: %s\n", o.FromSeq, o.ToSeq, o.Content)
	}
	c, _ := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "chat"})
	fmt.Println(strings.Contains(c.System, "The user lives in Lyon."), c.MemCtx.ObservationCount)
	// Output:
	// seq 1-2: - The user lives in Lyon.
	// true 1
}
