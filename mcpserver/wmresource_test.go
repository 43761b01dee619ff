package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestWorkingMemoryResourceRequired: working_memory_get and
// working_memory_update with neither threadId nor resourceId, for a
// principal of no only resource (the operator, a token of two), fail with
// the words memory_search and the API use (server.Tenant.RequireResource),
// naming resourceId; before, the empty id was checked as one and the
// error said "resource must be 1-128 characters".
func TestWorkingMemoryResourceRequired(t *testing.T) {
	e := openEngine(t)
	two := twoResources(t)
	for name, p := range map[string]*server.Principal{"Operator": server.Operator, "TwoResources": two} {
		cs := connect(t, e, p)
		for tool, args := range map[string]map[string]any{
			mcpserver.ToolWMGet:    {},
			mcpserver.ToolWMUpdate: {"content": `{"name":"Ana"}`},
		} {
			failed, text := call(t, cs, tool, args, nil)
			if !failed || !strings.Contains(text, "resourceId is required") || !strings.HasSuffix(text, "(field resourceId)") {
				t.Errorf("%s %s: failed %v, %q; want resourceId is required … (field resourceId)", name, tool, failed, text)
			}
		}
	}
}
