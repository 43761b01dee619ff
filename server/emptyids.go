package server

import (
	"encoding/json"
	"fmt"
)

// IDMembers are the members of a request body (or an MCP tool's
// arguments) that name a thread, resource, message or run. Decoded into
// a string, "" cannot be told from left out, and left out has a meaning
// (the thread's own resource, no thread filter, a generated run id): a
// body giving one as "" is refused instead (EmptyIDMember), as
// ?resourceId= is (CheckQuery).
var IDMembers = []string{"resourceId", "threadId", "messageId", "runId"}

// EmptyIDMember returns the first of IDMembers, in that order, that the
// JSON object data gives as "", else the path of the first message id
// given as "" ("messages[2].id": left out, an append generates a ULID),
// or "" when none is or data is not an object. Names are matched exactly:
// the server refuses a body naming a member in another case before it
// asks, as the MCP tools' schemas refuse such arguments.
func EmptyIDMember(data []byte) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return ""
	}
	for _, name := range IDMembers {
		if v, ok := members[name]; ok && string(v) == `""` {
			return name
		}
	}
	return emptyMessageID(members["messages"])
}

// emptyMessageID is the path ("messages[i].id") of the first element of
// the JSON array data that is an object giving "id" as "", or "" when
// none is or data is not an array of objects (the decoder refuses that).
func emptyMessageID(data json.RawMessage) string {
	var msgs []map[string]json.RawMessage
	if data == nil || json.Unmarshal(data, &msgs) != nil {
		return ""
	}
	for i, m := range msgs {
		if v, ok := m["id"]; ok && string(v) == `""` {
			return fmt.Sprintf("messages[%d].id", i)
		}
	}
	return ""
}
