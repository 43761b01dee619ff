package server

import (
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// AppendBounds are the array bounds of an append's JSON (AppendBody; the
// MCP tool memory_append, whose messages have no tool calls, takes the
// messages' bound alone) under limits l, by shape (a
// path with every index "[]", jsonkey.LongArray): the messages
// (MaxMessagesPerAppend) and each message's tool calls (MaxToolCalls).
// They are checked by counting, before the JSON is decoded (TooLong).
func AppendBounds(l engine.Limits) map[string]int {
	return map[string]int{"messages": l.MaxMessagesPerAppend, "messages[].toolCalls": l.MaxToolCalls}
}

// TooLong counts the arrays of the JSON value data that bounds (by
// shape: AppendBounds(l), or a part of it) bound, without decoding it,
// and returns the error Append under limits l returns for the first past
// its bound (an *engine.ValidationError: "at most 1000
// messages per append, got 1000000", field messages; "at most 128 tool
// calls, got 129", field messages[3].toolCalls); nil when none is, or
// data is not valid JSON (its decoder says so). A body of 1,000,000 empty
// objects (3 MB) is refused after a scan of its bytes, where its decoding
// and member checks took 29 s of CPU and 0.5 GB.
func TooLong(data []byte, l engine.Limits, bounds map[string]int) error {
	path, n := jsonkey.LongArray(data, bounds)
	if path == "" {
		return nil
	}
	var i int
	if _, err := fmt.Sscanf(path, "messages[%d].toolCalls", &i); err == nil {
		return l.TooManyToolCalls(i, n)
	}
	return l.TooManyMessages(n)
}
