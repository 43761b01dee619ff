package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// A JSONL line may be an item of OpenAI's Responses API (a response's
// "output", a conversation's items, an "input" list), with the line's
// "thread" and "resource" added, told by its "type":
//
//   - "message": {"type", "id", "status", "role", "content": [{"type":
//     "output_text", "text", "annotations"}]} (ResponseOutputMessage; an
//     input message, EasyInputMessage, has a role and a content string or
//     list of input_text parts). Read as a line without "type" is, its
//     "status" accepted and not stored.
//   - "function_call": {"type", "id", "call_id", "name", "arguments":
//     "<JSON text>", "status"} (ResponseFunctionToolCall). Read as a tool
//     call {call_id, name, arguments} of an assistant message: the message
//     of the line before when that is a Responses assistant message or
//     function_call of the same thread (a response's output lists a
//     message, then its calls, then the calls' outputs), else a message
//     of its own, with no content and the item's id. So does the OpenAI
//     Agents SDK turn items into chat messages (openai-agents-python,
//     Converter.items_to_messages: a function_call is added to the current
//     assistant message, or opens one), and a chat API needs a turn's calls
//     in one message before their results.
//   - "function_call_output": {"type", "id", "call_id", "output",
//     "status"} (ResponseInputItem.FunctionCallOutput; output a string or a
//     list of input_text, input_image and input_file parts). Read as a
//     "tool" message answering call_id, named after the function that
//     call_id called when an earlier line of the file made that call.
//
// Another type skips its line naming it (a "reasoning" item, a built-in
// tool's call): mnemo stores none of them.
const (
	itemMessage            = "message"
	itemFunctionCall       = "function_call"
	itemFunctionCallOutput = "function_call_output"
)

// itemTypes are the Responses item types a JSONL line may give.
var itemTypes = []string{itemMessage, itemFunctionCall, itemFunctionCallOutput}

// Members of a line by its item type: a "message" item's are a line's
// and "type" and "status"; a function_call's and a function_call_output's
// are their items' with the line's thread, resource, metadata and
// created_at (and no unstoredMembers).
var (
	messageItemMembers      = slices.Concat(jsonlMembers, []string{"type", "status"})
	functionCallMembers     = []string{"thread", "resource", "id", "type", "status", "call_id", "name", "arguments", "metadata", "created_at"}
	functionCallOutMembers  = []string{"thread", "resource", "id", "type", "status", "call_id", "output", "metadata", "created_at"}
	errFunctionCallNoCallID = errors.New(`"call_id" is required in a "function_call" item`)
	errFunctionCallNoName   = errors.New(`"name" is required in a "function_call" item`)
	errOutputNoCallID       = errors.New(`"call_id" is required in a "function_call_output" item`)
	errOutputRequired       = errors.New(`"output" is required in a "function_call_output" item`)
)

// lineMembers returns the item type the JSONL record b (valid JSON) gives
// in "type" ("" when none or null) with the members its line may hold and
// the unstored ones it accepts, or the reason "type" is malformed: not a
// string, or not one of itemTypes (`unknown item type "reasoning" …`).
func lineMembers(b []byte) (item string, known, unused []string, err error) {
	for k, v := range jsonkey.Members(b) {
		if k != "type" || string(v) == "null" {
			continue
		}
		if len(v) == 0 || v[0] != '"' {
			return "", nil, nil, fmt.Errorf(`"type" must be a string, got %s`, valueKind(v))
		}
		if err := json.Unmarshal(v, &item); err != nil {
			return "", nil, nil, fmt.Errorf(`"type": %w`, err)
		}
	}
	switch item {
	case "":
		// "type": null is accepted, and listed as no member of a record.
		return "", jsonlMembers, slices.Concat(unstoredMembers, []string{"type"}), nil
	case itemMessage:
		return item, messageItemMembers, unstoredMembers, nil
	case itemFunctionCall:
		return item, functionCallMembers, nil, nil
	case itemFunctionCallOutput:
		return item, functionCallOutMembers, nil, nil
	case itemWorkingMemory:
		return item, workingMemoryMembers, nil, nil
	case itemDispatch:
		return item, dispatchMembers, nil, nil
	}
	return "", nil, nil, unknownItemType(item)
}

// unknownItemType is the reason a line whose "type" is t, none of
// itemTypes, is skipped: naming t and the type it most likely meant, else
// the types mnemo reads.
func unknownItemType(t string) error {
	switch near := jsonkey.Closest(t, append(slices.Clone(itemTypes), itemWorkingMemory, itemDispatch)); {
	case near != "" && strings.EqualFold(near, t):
		return fmt.Errorf(`unknown item type %q (did you mean %q? types are case-sensitive)`, t, near)
	case near != "":
		return fmt.Errorf(`unknown item type %q (did you mean %q?)`, t, near)
	}
	return fmt.Errorf(`unknown item type %q: mnemo reads OpenAI Responses items of type %s, and stores no other`, t, jsonkey.AndList(itemTypes))
}

// functionCall is the assistant message of a "function_call" item: one
// tool call {call_id, name, arguments}, arguments JSON text in a string
// (as the Responses API sends them) or an object; "" or none is {} (as the
// Agents SDK reads it).
func (rec *jsonlRecord) functionCall() (engine.Message, error) {
	switch {
	case rec.CallID == "":
		return engine.Message{}, errFunctionCallNoCallID
	case rec.Name == "":
		return engine.Message{}, errFunctionCallNoName
	}
	args, err := callArguments("arguments", rec.Arguments)
	if err != nil {
		return engine.Message{}, err
	}
	return engine.Message{ID: rec.ID, Role: engine.RoleAssistant, Metadata: rec.Metadata,
		ToolCalls: []engine.ToolCall{{ID: rec.CallID, Name: rec.Name, Arguments: args}}}, nil
}

// functionCallOutput is the tool message of a "function_call_output"
// item, with the members of its output list not stored
// ("output[].input_image").
func (rec *jsonlRecord) functionCallOutput() (engine.Message, []string, error) {
	if rec.CallID == "" {
		return engine.Message{}, nil, errOutputNoCallID
	}
	c, err := parseContent(rec.Output, engine.RoleTool)
	switch {
	case err != nil:
		return engine.Message{}, nil, asOutput(err)
	case !c.given:
		return engine.Message{}, nil, errOutputRequired
	case c.parts && c.text == "":
		return engine.Message{}, nil, asOutput(c.noText())
	}
	unstored := make([]string, len(c.unstored))
	for i, u := range c.unstored {
		unstored[i] = "output" + strings.TrimPrefix(u, "content")
	}
	return engine.Message{ID: rec.ID, Role: engine.RoleTool, ToolCallID: rec.CallID, Content: c.text, Metadata: rec.Metadata}, unstored, nil
}

// asOutput words err, a reason parseContent gave for a "content", for the
// "output" it read: `output[0]: unknown part type "x"`.
func asOutput(err error) error {
	s := err.Error()
	for _, p := range []string{`"content"`, "content"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = strings.Replace(p, "content", "output", 1) + strings.ReplaceAll(rest, "content[]", "output[]")
			break
		}
	}
	return errors.New(s)
}

// responseItems is what reading a JSONL file keeps of its Responses
// items: the assistant message of the batch that a following
// function_call joins, and the function each call id called, which names
// the tool message of a function_call_output answering it.
type responseItems struct {
	open  int // index in the batch of the message a function_call joins; -1 when none
	first int // the line that message began on
	names map[string]string
}

// note records m, the message of line (l) about to be the batch's
// message i: a Responses assistant message or function_call is open to
// the function_calls of the lines after it; a function_call_output
// without a name is named after the function its call id called. Any
// other line closes the open message.
func (r *responseItems) note(m *engine.Message, l jsonlLine, i, line int) {
	r.open = -1
	switch {
	case l.item == itemMessage && m.Role == engine.RoleAssistant, l.item == itemFunctionCall:
		r.open, r.first = i, line
	case l.item == itemFunctionCallOutput && m.Name == "":
		m.Name = r.names[l.thread+"\x00"+m.ToolCallID]
	}
	r.called(l.thread, m.ToolCalls)
}

// join adds the call of a function_call line (l, its message m, line
// its number) to the open message of the batch when the line is of the
// batch's thread and resource (or gives none), and reports whether it did,
// naming the message's lines in wheres ("lines 4-6").
func (r *responseItems) join(batch *engine.AppendRequest, l jsonlLine, m engine.Message, line int, wheres []string) bool {
	if l.item != itemFunctionCall || r.open < 0 || r.open != len(batch.Messages)-1 ||
		batch.ThreadID != l.thread || (l.resource != "" && l.resource != batch.ResourceID) {
		return false
	}
	open := &batch.Messages[r.open]
	open.ToolCalls = append(open.ToolCalls, m.ToolCalls...)
	wheres[r.open] = fmt.Sprintf("lines %d-%d", r.first, line)
	r.called(l.thread, m.ToolCalls)
	return true
}

// called records the function each of calls, made in thread, called.
func (r *responseItems) called(thread string, calls []engine.ToolCall) {
	for _, c := range calls {
		if r.names == nil {
			r.names = map[string]string{}
		}
		r.names[thread+"\x00"+c.ID] = c.Name
	}
}
