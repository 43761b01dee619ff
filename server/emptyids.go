package server

import "encoding/json"

// IDMembers are the members of a request body (or an MCP tool's
// arguments) that name a thread, resource, message or run. Decoded into
// a string, "" cannot be told from left out, and left out has a meaning
// (the thread's own resource, no thread filter, a generated run id): a
// body giving one as "" is refused instead (EmptyIDMember), as
// ?resourceId= is (CheckQuery).
var IDMembers = []string{"resourceId", "threadId", "messageId", "runId"}

// EmptyIDMember returns the first of IDMembers, in that order, that the
// JSON object data gives as "", or "" when none is or data is not an
// object. Names are matched exactly: the server refuses a body naming a
// member in another case before it asks, as the MCP tools' schemas refuse
// such arguments.
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
	return ""
}
