package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

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

// MetadataTooLarge measures the metadata of each message of the append
// body data as the engine does (its length encoded as JSON, as stored:
// jsonkey.EncodedLen of the member's bytes, no value decoded) and returns
// the error Append under limits l returns for the first past
// l.MaxMetadataBytes (engine.Limits.MetadataTooLarge: field
// messages[i].metadata); nil when none is, or data is not valid JSON
// (its decoder says so). Decoded first, a metadata member of 1.3 million
// empty arrays cost 1.7 s and 187 MB before its 400. A member named in
// another case ("Metadata", which encoding/json would decode into the
// field before the case is refused) is measured too.
func MetadataTooLarge(data []byte, l engine.Limits) error {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(data, &body) != nil {
		return nil
	}
	l.MaxMetadataBytes = cmp.Or(l.MaxMetadataBytes, engine.DefaultMaxMetadataBytes)
	for i, m := range body.Messages {
		for k, v := range jsonkey.Members(m) {
			if strings.EqualFold(k, "metadata") {
				if err := l.MetadataTooLarge(i, jsonkey.EncodedLen(v)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
