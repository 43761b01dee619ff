package engine

import (
	"encoding/json"
	"testing"
)

// TestPlainKeys: a stored tool_calls reads whole only when each call
// names "id" and "name" once and spelt so: encoding/json matched "ID"
// and kept the last of two, where message_calls' triggers read the exact
// name (rev71). Its quick scan and its decoding agree: an escaped name
// ("\u0069d") is decoded, a quoted "id" inside a value only sends the
// text to the decoding.
func TestPlainKeys(t *testing.T) {
	for s, want := range map[string]bool{
		`[{"id":"call_1","name":"search","arguments":{"q":"numbers"}}]`:      true,
		`[{"id":"a","name":"f"},{"id":"b","name":"g","arguments":{"id":1}}]`: true,
		`[{"id":"\"ID\"","name":"f"}]`:                                       true,
		`[{"\u0069d":"a","name":"f"}]`:                                       true,
		`[{"ID":"a","name":"f"}]`:                                            false,
		`[{"id":"a","Id":"b","name":"f"}]`:                                   false,
		`[{"id":"a","id":"b","name":"f"}]`:                                   false,
		`[{"id":"a","name":"f","NAME":"g"}]`:                                 false,
		`[{"id":"a","\u0069d":"b","name":"f"}]`:                              false,
	} {
		var calls []ToolCall
		if err := json.Unmarshal([]byte(s), &calls); err != nil {
			t.Fatal(err)
		}
		if got := plainKeys(s, len(calls)); got != want {
			t.Errorf("plainKeys(%s) = %v, want %v", s, got, want)
		}
	}
}
