package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestToolArgumentsNUL (walk53): a tool call whose arguments hold U+0000
// as a JSON escape is a 400 naming the arguments, as a NUL in content or
// metadata is. It was stored; on Postgres every later call of the thread
// then failed with a bare 500 (pairing reads the stored calls as jsonb,
// which refuses \u0000), and an object form failed at once with a 500.
// An escaped backslash before "u0000" is no NUL and is stored.
func TestToolArgumentsNUL(t *testing.T) {
	enginetest.ForEachBackend(t, testToolArgumentsNUL)
}

func testToolArgumentsNUL(t *testing.T, be enginetest.Backend) {
	h := newHarnessOn(t, false, server.Config{}, be.Config(t, engine.Config{}))
	const pattern = "/v1/threads/{thread}/messages"
	call := func(id, args string) string {
		return `{"resourceId":"r","messages":[{"role":"assistant","content":"","toolCalls":[{"id":"` + id + `","name":"f","arguments":` + args + `}]}]}`
	}
	for name, args := range map[string]string{
		"object value":           `{"a":"x\u0000y"}`,
		"object key":             `{"a\u0000":1}`,
		"nested in a list":       `{"a":[1,{"b":"\u0000"}]}`,
		"string holding object":  `"{\"a\":\"\\u0000\"}"`,
		"string of a model text": `"not json \u0000"`,
	} {
		r := h.do("POST", "/v1/threads/t/messages", "", call("c-"+strings.ReplaceAll(name, " ", "-"), args))
		if r.status != 400 || r.problem(t).Field != "messages[0].toolCalls[0].arguments" || !strings.Contains(string(r.body), "NUL") {
			t.Errorf("%s (%s): %d %s, want a 400 naming messages[0].toolCalls[0].arguments", name, args, r.status, r.body)
		}
		h.validate("POST", pattern, r)
	}
	h.ok("POST", pattern, "/v1/threads/t/messages", "", call("c-backslash", `{"a":"\\u0000"}`), 200)
	h.ok("POST", pattern, "/v1/threads/t/messages", "", call("c-backslash-text", `"{\"a\":\"\\\\u0000\"}"`), 200)
	h.ok("POST", pattern, "/v1/threads/t/messages", "", call("c-later", `{"a":"b"}`), 200)
	h.ok("POST", pattern, "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"tool","content":"done","toolCallId":"c-later"}]}`, 200)
}
