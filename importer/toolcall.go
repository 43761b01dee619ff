package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// callError is the fault of the tool call at index of a line's
// tool_calls; err begins with the member at fault (".type …").
type callError struct {
	index int
	err   error
}

func (e *callError) Error() string { return fmt.Sprintf("[%d]%v", e.index, e.err) }

// typeFault is the reason a tool call is malformed for its "type" (typ,
// raw; absent or null when empty), or nil. The type is what Chat
// Completions writes, "function", or none (mnemo's and Ollama's shapes):
// OpenAI's other tool calls ("custom", whose input is free text in
// "custom", not arguments) are no function calls, and were stored as one
// before.
func typeFault(typ json.RawMessage) error {
	t := bytes.TrimSpace(typ)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	var s string
	if t[0] != '"' || json.Unmarshal(t, &s) != nil {
		return fmt.Errorf(".type must be a string, got %s", valueKind(t))
	}
	if s != "function" {
		return fmt.Errorf(`.type is %q: mnemo stores function calls only (a "type" of "function", or none)`, s)
	}
	return nil
}

// callArguments returns the arguments stored for raw, a tool call's
// arguments member as the record gives them (nil when it leaves it out),
// by the rule of mnemo serve and engine.Append (engine.ToolCallArgumentsOf):
// left out, null, an empty string or "null" are {}; a string holding an
// object giving each key once is that object; a string of other text
// (broken JSON, a list, a key given twice) is kept as the model's text; a
// list, a number or true/false is the error, a *engine.ValidationError
// naming field (the member as the record spells it,
// "tool_calls[0].function.arguments"). Before, mnemo ingest skipped a
// line whose arguments string held text that is no object, which mnemo
// serve and Append stored as the model's text.
func callArguments(field string, raw json.RawMessage) (json.RawMessage, error) {
	a, err := engine.ToolCallArgumentsOf(raw)
	var ve *engine.ValidationError
	if errors.As(err, &ve) {
		named := *ve
		named.Field = field
		return nil, &named
	}
	return a, err
}
