package server

import (
	"encoding/json"
	"strings"
)

// bodyIDs are the members of a request body that name a thread, resource,
// message or run. Decoded into a string, "" cannot be told from left out,
// and left out has a meaning (the thread's own resource, no thread filter,
// a generated run id): a body giving one as "" is refused instead, as
// ?resourceId= is (queryparams.go) and the MCP tools' arguments are.
var bodyIDs = []string{"resourceId", "threadId", "messageId", "runId"}

// emptyBodyID returns the first of bodyIDs that the top-level object data
// gives as "" (its key matched as encoding/json matches a field: the name,
// else case-insensitively), or "" when none is.
func emptyBodyID(data []byte) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return "" // not an object: decodeBody has refused it already
	}
	for key, v := range members {
		if string(v) != `""` {
			continue
		}
		for _, name := range bodyIDs {
			if strings.EqualFold(key, name) {
				return name
			}
		}
	}
	return ""
}
