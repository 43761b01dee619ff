package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// ids names the objects a request targets: bob's real ones, or ids that
// exist nowhere.
type ids struct{ thread, resource, run, message string }

// isolationCase builds the request of one operation against the objects of
// ids, as alice.
type isolationCase func(o ids) (method, path string, body any)

// isolationCases has one entry per operationId of the OpenAPI document;
// TestIsolation fails when an operation has none, so a new route cannot
// skip the isolation check.
var isolationCases = map[string]isolationCase{
	"listThreads":  func(o ids) (string, string, any) { return "GET", "/v1/threads?resourceId=" + o.resource, nil },
	"getThread":    func(o ids) (string, string, any) { return "GET", "/v1/threads/" + o.thread, nil },
	"deleteThread": func(o ids) (string, string, any) { return "DELETE", "/v1/threads/" + o.thread, nil },
	"listMessages": func(o ids) (string, string, any) { return "GET", "/v1/threads/" + o.thread + "/messages", nil },
	"appendMessages": func(o ids) (string, string, any) {
		return "POST", "/v1/threads/" + o.thread + "/messages", appendAs(o.resource)
	},
	"listThreadObservations": func(o ids) (string, string, any) {
		return "GET", "/v1/threads/" + o.thread + "/observations", nil
	},
	"getThreadWorkingMemory": func(o ids) (string, string, any) {
		return "GET", "/v1/threads/" + o.thread + "/working-memory", nil
	},
	"updateThreadWorkingMemory": func(o ids) (string, string, any) {
		return "PUT", "/v1/threads/" + o.thread + "/working-memory", map[string]any{"content": "# User\n- Name: Mallory\n"}
	},
	"deleteMessage":  func(o ids) (string, string, any) { return "DELETE", "/v1/messages/" + o.message, nil },
	"deleteResource": func(o ids) (string, string, any) { return "DELETE", "/v1/resources/" + o.resource, nil },
	"listResourceObservations": func(o ids) (string, string, any) {
		return "GET", "/v1/resources/" + o.resource + "/observations", nil
	},
	"getResourceWorkingMemory": func(o ids) (string, string, any) {
		return "GET", "/v1/resources/" + o.resource + "/working-memory", nil
	},
	"updateResourceWorkingMemory": func(o ids) (string, string, any) {
		return "PUT", "/v1/resources/" + o.resource + "/working-memory", map[string]any{"content": "x"}
	},
	"loadContext": func(o ids) (string, string, any) {
		return "POST", "/v1/context", map[string]any{"threadId": o.thread, "resourceId": o.resource, "runId": "mallory-run"}
	},
	"search": func(o ids) (string, string, any) {
		return "POST", "/v1/search", map[string]any{"resourceId": o.resource, "query": "bob secret plans"}
	},
	"listRuns":  func(o ids) (string, string, any) { return "GET", "/v1/runs?threadId=" + o.thread, nil },
	"getMemCtx": func(o ids) (string, string, any) { return "GET", "/v1/runs/" + o.run + "/memctx", nil },
	"replayRun": func(o ids) (string, string, any) { return "POST", "/v1/runs/" + o.run + "/replay", map[string]any{} },
}

// More requests of the same operations that name bob's objects another way.
var isolationExtra = []isolationCase{
	func(o ids) (string, string, any) { return "GET", "/v1/runs?resourceId=" + o.resource, nil },
	func(o ids) (string, string, any) {
		return "POST", "/v1/context", map[string]any{"threadId": "t-new", "resourceId": o.resource}
	},
	func(o ids) (string, string, any) {
		return "POST", "/v1/search", map[string]any{"resourceId": "res-alice", "threadId": o.thread, "query": "plans"}
	},
}

// Requests that create a thread of alice's when its id is free: on bob's
// thread they must fail as not found (thread ids are global names, so a
// taken id cannot answer as a free one; docs/serve.md) and change nothing.
var isolationCreating = []isolationCase{
	func(o ids) (string, string, any) {
		return "POST", "/v1/threads/" + o.thread + "/messages", appendAs("res-alice")
	},
	func(o ids) (string, string, any) {
		return "POST", "/v1/context", map[string]any{"threadId": o.thread, "resourceId": "res-alice"}
	},
	func(o ids) (string, string, any) { // alice's only resource, as memory_context
		return "POST", "/v1/context", map[string]any{"threadId": o.thread, "runId": "mallory-run-" + o.thread}
	},
}

// Operations without tenant data: health and the document answer anyone;
// metrics need an operator token.
var isolationPublic = map[string]int{"health": 200, "openapi": 200, "metrics": 403}

func appendAs(resource string) map[string]any {
	return map[string]any{"resourceId": resource, "messages": []map[string]any{{"role": "user", "content": "mallory was here"}}}
}

// TestIsolation tries every operation of the API with alice's token on bob's
// thread, run, message and resource: each answer must be the answer for an
// id that exists nowhere (404, same problem type and title, the detail
// differing only by the id the request named), must not name bob's
// resource unless the request did, must not carry bob's text, and must
// change nothing of bob's.
func TestIsolation(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-alice", "res-alice", aliceToken, "alice likes tea", "noted")
	h.seed("t-bob", "res-bob", bobToken, "bob secret plans: buy the orchard", "keep it quiet")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-bob", "query": "secret plans"}, 200)
	var ml server.MessageList
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, nil, 200).decode(t, &ml)
	bob := ids{thread: "t-bob", resource: "res-bob", run: "run-bob", message: ml.Messages[0].ID}
	nowhere := ids{thread: "t-nowhere", resource: "res-nowhere", run: "run-nowhere", message: "msg-nowhere"}

	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(h.doc, &doc); err != nil {
		t.Fatal(err)
	}
	for _, ops := range doc.Paths {
		for _, op := range ops {
			if want, ok := isolationPublic[op.OperationID]; ok {
				checkPublic(t, h, op.OperationID, want)
				continue
			}
			c, ok := isolationCases[op.OperationID]
			if !ok {
				t.Errorf("operation %s has no isolation case", op.OperationID)
				continue
			}
			checkIsolated(t, h, c, bob, nowhere)
		}
	}
	for _, c := range isolationExtra {
		checkIsolated(t, h, c, bob, nowhere)
	}
	for i, c := range isolationCreating {
		method, path, body := c(bob)
		got := h.do(method, path, aliceToken, body)
		if got.status != 404 || strings.Contains(string(got.body), "res-bob") || got.problem(t).Type != server.ProblemTypeBase+"not-found" {
			t.Errorf("%s %s as alice on bob's thread: %d %s, want 404 naming nothing of bob's", method, path, got.status, got.body)
		}
		free := nowhere
		free.thread = fmt.Sprintf("t-free-%d", i)
		if _, path, body := c(free); h.do(method, path, aliceToken, body).status != 200 {
			t.Errorf("%s %s as alice on a free thread id: not 200", method, path)
		}
	}

	// Listings without a filter show alice's only.
	for _, path := range []string{"/v1/threads", "/v1/runs"} {
		r := h.do("GET", path, aliceToken, nil)
		if r.status != 200 || strings.Contains(string(r.body), "bob") {
			t.Errorf("GET %s as alice: %d %s", path, r.status, r.body)
		}
	}
	// Nothing of bob's changed.
	msgs, err := h.e.Messages(context.Background(), "t-bob", 0, 0)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("bob's thread after the attempts: %d messages, err %v", len(msgs), err)
	}
	r := h.do("GET", "/v1/threads/t-bob/working-memory", bobToken, nil)
	var wm server.WorkingMemory
	r.decode(t, &wm)
	if wm.Version != 0 {
		t.Fatalf("bob's working memory was written: %+v", wm)
	}
}

func checkIsolated(t *testing.T, h *harness, c isolationCase, bob, nowhere ids) {
	t.Helper()
	method, path, body := c(bob)
	got := h.do(method, path, aliceToken, body)
	_, npath, nbody := c(nowhere)
	ref := h.do(method, npath, aliceToken, nbody)
	if got.status != 404 || ref.status != 404 {
		t.Errorf("%s %s as alice: %d (nowhere: %d), want 404 for both; body %s", method, path, got.status, ref.status, got.body)
		return
	}
	gp, rp := got.problem(t), ref.problem(t)
	replaced := strings.NewReplacer(bob.thread, nowhere.thread, bob.resource, nowhere.resource, bob.run, nowhere.run, bob.message, nowhere.message).Replace(gp.Detail)
	if gp.Type != rp.Type || gp.Title != rp.Title || replaced != rp.Detail {
		t.Errorf("%s %s: bob's object answers %+v, an unknown one %+v", method, path, gp, rp)
	}
	named, _ := json.Marshal(body)
	if strings.Contains(string(got.body), "res-bob") && !strings.Contains(path+string(named), "res-bob") {
		t.Errorf("%s %s: the answer names bob's resource: %s", method, path, got.body)
	}
	if strings.Contains(string(got.body), "secret plans") || strings.Contains(string(got.body), "orchard") {
		t.Errorf("%s %s: the answer carries bob's text: %s", method, path, got.body)
	}
}

func checkPublic(t *testing.T, h *harness, op string, want int) {
	t.Helper()
	path := map[string]string{"health": "/healthz", "openapi": "/openapi.json", "metrics": "/metrics"}[op]
	r := h.do("GET", path, aliceToken, nil)
	if r.status != want || strings.Contains(string(r.body), "bob") {
		t.Errorf("GET %s as alice: %d, want %d; body names bob: %v", path, r.status, want, strings.Contains(string(r.body), "bob"))
	}
}

// TestIsolationWithoutWorkingMemory: on a server with no working memory
// configured, another tenant's thread or resource answers the
// working-memory routes exactly as one that exists nowhere, which is the
// answer every other route gives for an unknown thread (404 not-found,
// `thread not found: "…"`); only the caller's own thread or resource
// learns that working memory is off, and how to turn it on (mnemo serve
// --config with a "workingMemory" member). Before, bob's thread answered
// "working memory is not configured" before its owner was checked.
func TestIsolationWithoutWorkingMemory(t *testing.T) {
	const wmHowTo = `start mnemo serve once with --config FILE whose "workingMemory" member gives a schema, schemaFile or template`
	h := newHarnessOn(t, true, server.Config{}, engine.Config{})
	h.seed("t-alice", "res-alice", aliceToken, "alice likes tea")
	h.seed("t-bob", "res-bob", bobToken, "bob secret plans: buy the orchard")
	bob := ids{thread: "t-bob", resource: "res-bob"}
	nowhere := ids{thread: "t-nowhere", resource: "res-nowhere"}
	for _, op := range []string{"getThreadWorkingMemory", "updateThreadWorkingMemory", "getResourceWorkingMemory", "updateResourceWorkingMemory"} {
		checkIsolated(t, h, isolationCases[op], bob, nowhere)
	}
	unknown := h.do("GET", "/v1/threads/t-nowhere", aliceToken, nil).problem(t)
	for _, method := range []string{"GET", "PUT"} {
		got := h.do(method, "/v1/threads/t-bob/working-memory", aliceToken, map[string]any{"content": "x"})
		if p := got.problem(t); got.status != 404 || p.Type != unknown.Type || p.Detail != strings.ReplaceAll(unknown.Detail, "t-nowhere", "t-bob") {
			t.Errorf("%s bob's thread's working memory as alice: %d %+v, want the unknown thread's answer %+v", method, got.status, p, unknown)
		}
	}
	for _, path := range []string{"/v1/threads/t-alice/working-memory", "/v1/resources/res-alice/working-memory"} {
		// The detail says how to turn it on; it said only "this server
		// has no working memory configured".
		if p := h.do("GET", path, aliceToken, nil).problem(t); p.Type != server.ProblemTypeBase+"working-memory-off" || !strings.Contains(p.Detail, wmHowTo) {
			t.Errorf("GET %s as alice: %+v, want working-memory-off saying %q", path, p, wmHowTo)
		}
	}
}
