package engine_test

import (
	"context"
	"fmt"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// Profile is the working-memory schema of the schema-mode example
// (docs/working-memory.md shows the same code).
type Profile struct {
	Name string   `json:"name,omitempty"`
	City string   `json:"city,omitempty"`
	Todo []string `json:"todo,omitempty"`
}

// In schema mode an update is a JSON Merge Patch of the state. HandleToolCall
// returns go-openai's tool message; Append takes an engine.Message, so the
// loop converts both the model's call and the result (docs/library.md, "From
// go-openai and back").
func ExampleEngine_HandleToolCall_schema() {
	e, done := exampleEngine(engine.Config{
		WorkingMemory: &working.Config{SchemaOf: Profile{}, Scope: working.ScopeResource}})
	defer done()
	ctx := context.Background()
	threadID, resourceID, runID := "chat", "ana", "run-1"
	appendTo := func(m engine.Message) error {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: threadID, ResourceID: resourceID, Messages: []engine.Message{m}})
		return err
	}
	if err := appendTo(engine.Message{Role: engine.RoleUser, Content: "I moved to Porto."}); err != nil {
		fmt.Println(err)
		return
	}
	// The model's answer, as go-openai returns it.
	answer := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{
		ID: "call_0", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: tools.UpdateWorkingMemoryName, Arguments: `{"city":"Porto"}`}}}}

	// 1. Append the assistant message that makes the calls.
	asst := engine.Message{Role: engine.RoleAssistant, Content: answer.Content}
	for _, tc := range answer.ToolCalls {
		asst.ToolCalls = append(asst.ToolCalls, engine.ToolCall{ID: tc.ID, Name: tc.Function.Name,
			Arguments: engine.ToolCallArguments(tc.Function.Arguments)})
	}
	if err := appendTo(asst); err != nil {
		fmt.Println(err)
		return
	}
	// 2. and 3. Handle each call and append its result as a tool message.
	for _, toolCall := range answer.ToolCalls {
		msg, err := e.HandleToolCall(ctx, runID, threadID, resourceID, toolCall)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(msg.Content)
		if err := appendTo(engine.Message{Role: engine.RoleTool, ToolCallID: toolCall.ID,
			Name: toolCall.Function.Name, Content: msg.Content}); err != nil {
			fmt.Println(err)
			return
		}
	}
	wm, err := e.WorkingMemory()
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := wm.Get(ctx, working.ResourceKey(resourceID))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Content, "v", st.Version)
	// Output:
	// {"ok":true,"version":1}
	// {"city":"Porto"} v 1
}

// An erasure takes every working-memory version written by a run whose
// context held an erased turn (docs/working-memory.md). A correction is
// usually written by such a run: here the run that stored "Porto" had "I
// live in Lyon." in its window, so erasing that one turn takes both
// versions, and with no version left the state is back to its initial
// content under the next number (v3): numbers are never issued twice, so a
// tool result naming v2 never names another content. To keep what should
// stay, read the state before the erasure and set it again after, outside
// any run: a version nothing ties to a run is kept by later erasures.
func ExampleEngine_DeleteMessages_workingMemory() {
	e, done := exampleEngine(engine.Config{
		WorkingMemory: &working.Config{SchemaOf: Profile{}, Scope: working.ScopeResource}})
	defer done()
	ctx := context.Background()
	wm, _ := e.WorkingMemory()
	key := working.ResourceKey("ana")
	var lyonID string
	// turn appends the user's message, loads the run's context (which holds
	// it) and applies the model's working-memory update in that run.
	turn := func(runID, said, update string) {
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: said}}})
		if err != nil {
			fmt.Println(err)
			return
		}
		if lyonID == "" {
			lyonID = res.IDs[0]
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: runID, ThreadID: "chat", ResourceID: "ana"}); err != nil {
			fmt.Println(err)
			return
		}
		call := openai.ToolCall{ID: "call_0", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tools.UpdateWorkingMemoryName, Arguments: update}}
		msgs := []engine.Message{{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: call.ID,
			Name: call.Function.Name, Arguments: engine.ToolCallArguments(call.Function.Arguments)}}}}
		out, err := e.HandleToolCall(ctx, runID, "chat", "ana", call)
		if err != nil {
			fmt.Println(err)
			return
		}
		msgs = append(msgs, engine.Message{Role: engine.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: out.Content},
			engine.Message{Role: engine.RoleAssistant, Content: "Noted."})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "ana", Messages: msgs}); err != nil {
			fmt.Println(err)
		}
	}
	show := func(when string) {
		st, err := wm.Get(ctx, key)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(when+":", st.Content, "v", st.Version)
	}
	turn("run-1", "I live in Lyon.", `{"city":"Lyon"}`)
	turn("run-2", "I live in Porto now.", `{"city":"Porto"}`)
	show("before")

	kept, _ := wm.Get(ctx, key)
	res, err := e.DeleteMessages(ctx, lyonID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("versions invalidated:", res.WorkingMemoryInvalidated)
	show("after the erasure")

	// Set outside a run (no run id): the operator's copy of what stays.
	if _, err := wm.Set(ctx, key, kept.Content, working.Origin{ResourceID: "ana"}); err != nil {
		fmt.Println(err)
		return
	}
	show("set again")
	// Output:
	// before: {"city":"Porto"} v 2
	// versions invalidated: 2
	// after the erasure: {} v 3
	// set again: {"city":"Porto"} v 4
}
