package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryNUL (walk53): a working-memory state holding U+0000 is
// a 422 naming content, and the state is unchanged. It was stored on
// SQLite and a bare 500 on Postgres (text refuses U+0000).
func TestWorkingMemoryNUL(t *testing.T) {
	enginetest.ForEachBackend(t, testWorkingMemoryNUL)
}

func testWorkingMemoryNUL(t *testing.T, be enginetest.Backend) {
	h := newHarnessOn(t, false, server.Config{}, be.Config(t, engine.Config{WorkingMemory: &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread}}))
	const pattern = "/v1/threads/{thread}/working-memory"
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"hi"}]}`, 200)
	r := h.do("PUT", "/v1/threads/t/working-memory", "", `{"content":"# User\n- Name: Ann\u0000\n"}`)
	if r.status != 422 || r.problem(t).Field != "content" || !strings.Contains(string(r.body), "NUL character") {
		t.Errorf("content with U+0000: %d %s, want a 422 naming content", r.status, r.body)
	}
	h.validate("PUT", pattern, r)
	var w server.WorkingMemory
	h.ok("GET", pattern, "/v1/threads/t/working-memory", "", nil, 200).decode(t, &w)
	if w.Version != 0 || w.Content != "# User\n- Name:\n" {
		t.Errorf("after the refusal: %+v, want the template at version 0", w)
	}
}
