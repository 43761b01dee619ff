package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/server"
)

// TestDotIDsRefused: a write that would store something under the id "."
// or ".." (which no browser or JS client can put in a URL path) is a 400
// naming the input that carried it, and saying the rule.
func TestDotIDsRefused(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one")
	msg := func(id string) map[string]any {
		m := map[string]any{"role": "user", "content": "x"}
		if id != "" { // an id given as "" is a 400 of its own (f4817db6)
			m["id"] = id
		}
		return map[string]any{"resourceId": "res-bob", "messages": []map[string]any{m}}
	}
	for _, c := range []struct {
		name, method, path, pattern string
		body                        any
		field                       string
	}{
		{"AppendThread", "POST", "/v1/threads/%2e%2e/messages", "/v1/threads/{thread}/messages", msg(""), "thread"},
		{"AppendThreadDot", "POST", "/v1/threads/%2E/messages", "/v1/threads/{thread}/messages", msg(""), "thread"},
		{"AppendResource", "POST", "/v1/threads/t-new/messages", "/v1/threads/{thread}/messages",
			map[string]any{"resourceId": ".", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId"},
		// A token not given the resource: the id rule's 400, whoever asks
		// (it was a 404 "resource not found").
		{"AppendResourceTenant", "POST", "/v1/threads/t-new/messages", "/v1/threads/{thread}/messages",
			map[string]any{"resourceId": "..", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId"},
		{"AppendMessage", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", msg(".."), "messages[0].id"},
		{"ContextRun", "POST", "/v1/context", "/v1/context", map[string]any{"threadId": "t-bob", "runId": "."}, "runId"},
		// A new conversation's run is recorded under its thread (it was).
		{"ContextNewThread", "POST", "/v1/context", "/v1/context", map[string]any{"threadId": "..", "resourceId": "res-bob"}, "threadId"},
		// A new conversation's resource, not the token's: the rule, as an
		// append's (it was a 404 "resource not found").
		{"ContextNewResourceTenant", "POST", "/v1/context", "/v1/context", map[string]any{"threadId": "t-new", "resourceId": ".."}, "resourceId"},
		{"ThreadWM", "PUT", "/v1/threads/%2e%2e/working-memory", "/v1/threads/{thread}/working-memory", map[string]any{"content": "# User\n"}, "thread"},
		{"ResourceWM", "PUT", "/v1/resources/%2e/working-memory", "/v1/resources/{resource}/working-memory", map[string]any{"content": "# User\n"}, "resource"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := bobToken
			if c.name == "ResourceWM" || c.name == "AppendResource" {
				token = opsToken // a resource the token may touch
			}
			r := h.do(c.method, c.path, token, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			if p := r.problem(t); p.Field != c.field || !strings.Contains(p.Detail, `not "." or ".."`) {
				t.Fatalf("problem %+v, want field %q saying the rule", p, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	if _, err := h.e.GetThread(context.Background(), ".."); err == nil {
		t.Error("thread .. stored")
	}
}

// TestDotIDsStored: a thread, message and run stored under "." and ".."
// before they were refused (legacyid.Allow) are still answered by a
// client that sends the path as written (Go's net/http), and erased.
func TestDotIDsStored(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	legacyid.Allow(h.e)
	ctx := context.Background()
	if _, err := h.e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: "res-alice", Messages: []engine.Message{
		{ID: ".", Role: engine.RoleUser, Content: "dot"}, {Role: engine.RoleAssistant, Content: "dot dot"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: ".."}); err != nil {
		t.Fatal(err)
	}
	h.ok("GET", "/v1/threads/{thread}", "/v1/threads/%2e%2e", aliceToken, nil, 200)
	var page struct{ Messages []engine.Message }
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/%2e%2e/messages", aliceToken, nil, 200).decode(t, &page)
	if len(page.Messages) != 2 || page.Messages[0].ID != "." {
		t.Fatalf("messages of ..: %+v", page.Messages)
	}
	h.ok("GET", "/v1/runs/{run}/memctx", "/v1/runs/%2e/memctx", aliceToken, nil, 200)
	h.ok("DELETE", "/v1/messages/{message}", "/v1/messages/%2e", aliceToken, nil, 200)
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/%2e%2e", aliceToken, nil, 200)
	if r := h.do("GET", "/v1/threads/%2e%2e", aliceToken, nil); r.status != 404 {
		t.Fatalf("thread .. after DELETE: status %d, want 404", r.status)
	}
}

// TestOpenAPIDotIDs: /openapi.json says of each path id what the server
// does with "." and "..": the schema of an id a write stores under (an
// append's thread, a working-memory update's thread or resource) refuses
// them, as the server answers 400, and every other path id's schema takes
// them, as the server does (reads and erasures of a store written before).
// The one pattern of every path id took them all before.
func TestOpenAPIDotIDs(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name        string `json:"name"`
				In          string `json:"in"`
				Description string `json:"description"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(h.doc, &doc); err != nil {
		t.Fatal(err)
	}
	bodies := map[string]any{
		"POST /v1/threads/{thread}/messages":          map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"role": "user", "content": "x"}}},
		"PUT /v1/threads/{thread}/working-memory":     map[string]any{"content": "# User\n"},
		"PUT /v1/resources/{resource}/working-memory": map[string]any{"content": "# User\n"},
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "/", "~1") }
	writes := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for i, p := range op.Parameters {
				if p.In != "path" {
					continue
				}
				sch, err := h.schema.Compile("mem://openapi.json#/paths/" + esc(path) + "/" + method + "/parameters/" + itoa(i) + "/schema")
				if err != nil {
					t.Fatalf("%s %s %s: %v", method, path, p.Name, err)
				}
				name := strings.ToUpper(method) + " " + path
				refuses := sch.Validate("..") != nil
				if (sch.Validate(".") != nil) != refuses || sch.Validate("...") != nil || sch.Validate("a.b") != nil {
					t.Errorf("%s: the schema of %s takes . %v, .. %v, ... %v, a.b %v", name, p.Name, sch.Validate("."), sch.Validate(".."), sch.Validate("..."), sch.Validate("a.b"))
				}
				body, write := bodies[name]
				if refuses != write {
					t.Errorf("%s: the schema of %s refuses .. = %v, want %v", name, p.Name, refuses, write)
				}
				if write {
					writes++
				}
				if !strings.Contains(p.Description, `"."`) || !strings.Contains(p.Description, `".."`) {
					t.Errorf("%s: the description of %s does not say what becomes of . and ..: %q", name, p.Name, p.Description)
				}
				if method == "post" || method == "put" {
					if body == nil {
						body = map[string]any{}
					}
				}
				r := h.do(strings.ToUpper(method), strings.ReplaceAll(path, "{"+p.Name+"}", "%2e%2e"), opsToken, body)
				served := !(r.status == 400 && strings.Contains(string(r.body), `not \".\" or \"..\"`))
				if served == refuses {
					t.Errorf("%s with %s ..: %d %.200s; the document says it refuses it: %v", name, p.Name, r.status, r.body, refuses)
				}
			}
		}
	}
	if writes != len(bodies) {
		t.Errorf("%d writes' ids refuse .., want %d", writes, len(bodies))
	}
}
