package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestServeToolCallArguments: over HTTP, a call's arguments that are a
// string holding an object are refused naming them, also when a
// byte-order mark, a zero-width space, a word joiner or Unicode white
// space stands around the object (each passed as a model's text before);
// a string holding text that is no object is stored as sent, and null
// arguments as {} (no arguments), as mnemo ingest stores them.
func TestServeToolCallArguments(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const path = "/v1/threads/{thread}/messages"
	for i, c := range []struct {
		name, args string
		stored     string // the arguments stored, "" when refused
	}{
		{"StringOfObject", `"{\"q\":\"x\"}"`, ""},
		{"BOM", `"\ufeff{\"q\":\"x\"}"`, ""},
		{"RawBOM", "\"\ufeff{\\\"q\\\":\\\"x\\\"}\"", ""},
		{"ZeroWidth", `"\u200b\u2060{\"q\":\"x\"}\ufeff"`, ""},
		{"UnicodeSpace", `"\u00a0\u3000{}\u0085"`, ""},
		{"TextWithBOM", `"\ufeffcall it with q=x"`, `"\ufeffcall it with q=x"`}, // as sent
		{"Object", `{"q":"x"}`, `{"q":"x"}`},
		// null is no arguments, stored as {}, as mnemo ingest reads it;
		// it was a 400 ("got null").
		{"Null", `null`, `{}`},
		{"NullSpaced", " null ", `{}`},
	} {
		thread := fmt.Sprintf("t-args-%d", i)
		body := `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":` + c.args + `}]}]}`
		p := strings.Replace(path, "{thread}", thread, 1)
		if c.stored == "" {
			r := h.do("POST", p, bobToken, body)
			if r.status != 400 {
				t.Errorf("%s: status %d, want 400: %s", c.name, r.status, r.body)
				continue
			}
			h.validate("POST", path, r)
			if pr := r.problem(t); !strings.Contains(pr.Detail, "messages[0].toolCalls[0].arguments") || !strings.Contains(pr.Detail, "a string holding a JSON object") {
				t.Errorf("%s: detail %q, want it to name messages[0].toolCalls[0].arguments as a string holding a JSON object", c.name, pr.Detail)
			}
			continue
		}
		h.ok("POST", path, p, bobToken, body, 200)
		ms, err := h.e.Messages(context.Background(), thread, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(ms[0].ToolCalls[0].Arguments); got != c.stored {
			t.Errorf("%s: stored arguments %s, want %s", c.name, got, c.stored)
		}
	}
}
