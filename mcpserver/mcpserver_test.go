package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

const tokens = `{"tokens": [
	{"name": "alice", "token": "alice-secret-1", "resources": ["res-alice"]},
	{"name": "bob", "token": "bob-secret-22", "resources": ["res-bob"], "erase": true}
]}`

func principals(t *testing.T) (alice, bob *server.Principal, tok *server.Tokens) {
	t.Helper()
	tok, err := server.ParseTokens([]byte(tokens))
	if err != nil {
		t.Fatal(err)
	}
	alice, _ = tok.Lookup("alice-secret-1")
	bob, _ = tok.Lookup("bob-secret-22")
	return alice, bob, tok
}

// twoResources is the principal of a token of two resources, r1 and r2:
// it has no only resource to default to.
func twoResources(t *testing.T) *server.Principal {
	t.Helper()
	tok, err := server.ParseTokens([]byte(`{"tokens": [{"name": "two", "token": "two-secret-1", "resources": ["r1", "r2"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	two, _ := tok.Lookup("two-secret-1")
	return two
}

func openEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"}},"additionalProperties":false}`),
	}})
}

// connect opens an in-process client session to a server acting as p.
func connect(t *testing.T, e *engine.Engine, p *server.Principal) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, e, p, mcpserver.Options{})
}

// connectWith is connect to a server made with opt.
func connectWith(t *testing.T, e *engine.Engine, p *server.Principal, opt mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(e, p, opt).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; it returns
// the result's text when the tool failed.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) (failed bool, text string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		return true, text
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return false, text
}

// TestTools: the six tools with typed inputs and outputs, over the SDK's
// in-memory transport, as a tenant of one resource.
func TestTools(t *testing.T) {
	e := openEngine(t)
	alice, bob, _ := principals(t)
	cs := connect(t, e, alice)
	ctx := context.Background()

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 80 || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description %q, schemas in %v out %v", tool.Name, tool.Description, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
	}
	sort.Strings(names)
	if got, want := strings.Join(names, ","), "memory_append,memory_context,memory_delete,memory_search,working_memory_get,working_memory_update"; got != want {
		t.Fatalf("tools %s, want %s", got, want)
	}

	var app mcpserver.AppendOutput
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{
		{"role": "user", "content": "I adopted a greyhound called Pepper"}, {"role": "assistant", "content": "Pepper is a lovely name"},
		{"role": "user", "content": "I live in Porto now"},
	}}, &app); failed {
		t.Fatalf("append: %s", text)
	}
	if app.ResourceID != "res-alice" || len(app.Seqs) != 3 || app.Seqs[2] != 3 {
		t.Fatalf("append %+v", app)
	}
	e.SyncIndexes(ctx)

	var sr mcpserver.SearchOutput
	if failed, text := call(t, cs, "memory_search", map[string]any{"query": "greyhound dog name"}, &sr); failed {
		t.Fatalf("search: %s", text)
	}
	if len(sr.Hits) == 0 || !strings.Contains(sr.Hits[0].Content, "Pepper") || sr.Hits[0].Role == "" || sr.Hits[0].Score == nil {
		t.Fatalf("search hits %+v", sr.Hits)
	}

	var wm mcpserver.WorkingMemoryOutput
	if failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "patch": map[string]any{"name": "Ana", "city": "Porto"}}, &wm); failed {
		t.Fatalf("wm update: %s", text)
	}
	if wm.Version != 1 || wm.Changed == nil || !*wm.Changed {
		t.Fatalf("wm %+v", wm)
	}
	if failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "patch": map[string]any{"age": 40}}, nil); !failed || !strings.Contains(text, "refused") {
		t.Fatalf("a patch the schema rejects: failed=%v %q", failed, text)
	}
	call(t, cs, "working_memory_get", map[string]any{"threadId": "t1"}, &wm)
	if !strings.Contains(wm.Content, `"city":"Porto"`) || wm.Version != 1 {
		t.Fatalf("wm get %+v", wm)
	}

	var c mcpserver.ContextOutput
	if failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t1", "runId": "run-1", "recentN": 1, "query": "dog", "topK": 2}, &c); failed {
		t.Fatalf("context: %s", text)
	}
	if c.RunID != "run-1" || c.Recalled == 0 || !strings.Contains(c.System, "Porto") || !strings.HasPrefix(c.PromptHash, "sha256:") {
		t.Fatalf("context %+v", c)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://runs/run-1/memctx"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, c.PromptHash) {
		t.Fatalf("memctx resource: %v %+v", err, rr)
	}
	// The working-memory version the run rendered: the update's, 1.
	if text := rr.Contents[0].Text; !strings.Contains(text, `"workingMemoryScope": "thread"`) || !strings.Contains(text, `"workingMemoryVersion": 1`) {
		t.Errorf("memctx resource lacks workingMemoryScope thread and workingMemoryVersion 1: %s", text)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://threads/t1/messages"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "greyhound") {
		t.Fatalf("messages resource: %v %+v", err, rr)
	}

	if failed, text := call(t, cs, "memory_delete", map[string]any{"threadId": "t1"}, nil); !failed || !strings.Contains(text, "may not erase") {
		t.Fatalf("delete without erasure rights: failed=%v %q", failed, text)
	}
	bs := connect(t, e, bob)
	call(t, bs, "memory_append", map[string]any{"threadId": "tb", "messages": []map[string]any{{"role": "user", "content": "forget me"}}}, nil)
	var del mcpserver.DeleteOutput
	if failed, text := call(t, bs, "memory_delete", map[string]any{"threadId": "tb"}, &del); failed || len(del.Messages) != 1 {
		t.Fatalf("delete with erasure rights: %v %q %+v", failed, text, del)
	}
}

// TestToolIsolation: bob's session tries every tool and resource on
// alice's thread, run, message and resource: each fails as not found,
// names nothing of alice's beyond what bob named and changes nothing.
func TestToolIsolation(t *testing.T) {
	e := openEngine(t)
	alice, bob, _ := principals(t)
	as := connect(t, e, alice)
	var app mcpserver.AppendOutput
	call(t, as, "memory_append", map[string]any{"threadId": "t-alice", "messages": []map[string]any{{"role": "user", "content": "alice secret: the code is 4711"}}}, &app)
	call(t, as, "memory_context", map[string]any{"threadId": "t-alice", "runId": "run-alice"}, nil)
	e.SyncIndexes(context.Background())

	bs := connect(t, e, bob)
	attempts := map[string]map[string]any{
		"memory_append":         {"threadId": "t-alice", "resourceId": "res-bob", "messages": []map[string]any{{"role": "user", "content": "x"}}},
		"memory_search":         {"query": "secret code", "resourceId": "res-alice"},
		"memory_context":        {"threadId": "t-alice"},
		"working_memory_get":    {"threadId": "t-alice"},
		"working_memory_update": {"threadId": "t-alice", "patch": map[string]any{"name": "Mallory"}},
		"memory_delete":         {"threadId": "t-alice"},
	}
	more := []struct {
		tool string
		args map[string]any
	}{
		{"memory_search", map[string]any{"query": "secret code", "threadId": "t-alice"}},
		{"memory_append", map[string]any{"threadId": "t-alice", "resourceId": "res-alice", "messages": []map[string]any{{"role": "user", "content": "x"}}}},
		{"working_memory_get", map[string]any{"resourceId": "res-alice"}},
		{"memory_delete", map[string]any{"messageId": app.IDs[0]}},
		{"memory_delete", map[string]any{"resourceId": "res-alice"}},
	}
	for tool, args := range attempts {
		more = append(more, struct {
			tool string
			args map[string]any
		}{tool, args})
	}
	for _, a := range more {
		failed, text := call(t, bs, a.tool, a.args, nil)
		if !failed || !strings.Contains(text, "not found") || strings.Contains(text, "4711") {
			t.Errorf("%s %v as bob: failed=%v %q, want not found", a.tool, a.args, failed, text)
		}
		b, _ := json.Marshal(a.args)
		if strings.Contains(text, "res-alice") && !strings.Contains(string(b), "res-alice") {
			t.Errorf("%s as bob names alice's resource: %q", a.tool, text)
		}
	}
	for _, uri := range []string{"mnemo://runs/run-alice/memctx", "mnemo://threads/t-alice/messages"} {
		if _, err := bs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil || strings.Contains(err.Error(), "4711") {
			t.Errorf("read %s as bob: err %v, want resource not found", uri, err)
		}
	}
	ms, err := e.Messages(context.Background(), "t-alice", 0, 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("alice's thread after bob's attempts: %d messages, %v", len(ms), err)
	}
}

// mcpHTTPServer serves e's /mcp endpoint behind the test tokens on a
// loopback HTTP server, closed when the test ends.
func mcpHTTPServer(t *testing.T, e *engine.Engine) *httptest.Server {
	t.Helper()
	_, _, tok := principals(t)
	srv, err := server.New(server.Config{Engine: e, Tokens: tok, Mount: map[string]func(*server.Principal) http.Handler{
		"/mcp": mcpserver.Handler(e, mcpserver.Options{}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// serveHTTP serves e's /mcp endpoint with the test tokens on a loopback
// HTTP server and returns a function that opens a session with a token; it
// checks that no session opens without one.
func serveHTTP(t *testing.T, e *engine.Engine) (connectAs func(token string) *mcp.ClientSession) {
	t.Helper()
	ts := mcpHTTPServer(t, e)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		t.Fatal("connected without a token")
	}
	return func(token string) *mcp.ClientSession {
		hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
}

// TestWorkingMemoryOffIsolation: with no working memory configured, the
// working-memory tools answer bob on alice's thread exactly as on a thread
// that exists nowhere ("thread … not found"), over HTTP with each one's
// token; only alice learns, on her own thread, that working memory is off
// (and how to turn it on).
// Before, alice's thread answered bob "working memory is not configured".
func TestWorkingMemoryOffIsolation(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	connectAs := serveHTTP(t, e)
	as, bs := connectAs("alice-secret-1"), connectAs("bob-secret-22")
	if failed, text := call(t, as, "memory_append", map[string]any{"threadId": "t-alice", "messages": []map[string]any{{"role": "user", "content": "hello"}}}, nil); failed {
		t.Fatal(text)
	}
	for _, tool := range []string{"working_memory_get", "working_memory_update"} {
		args := func(thread string) map[string]any {
			return map[string]any{"threadId": thread, "content": "x"}
		}
		if tool == "working_memory_get" {
			args = func(thread string) map[string]any { return map[string]any{"threadId": thread} }
		}
		_, got := call(t, bs, tool, args("t-alice"), nil)
		_, ref := call(t, bs, tool, args("t-nowhere"), nil)
		if strings.ReplaceAll(got, "t-alice", "t-nowhere") != ref || !strings.Contains(ref, `thread not found: "t-nowhere"`) {
			t.Errorf("%s as bob: alice's thread answers %q, an unknown one %q; want the same thread-not-found answer", tool, got, ref)
		}
		// How to turn it on is said too: it said only "this server has
		// no working memory configured".
		const howTo = `start mnemo serve once with --config FILE whose "workingMemory" member gives a schema, schemaFile or template`
		if failed, text := call(t, as, tool, args("t-alice"), nil); !failed || !strings.Contains(text, "not configured") || !strings.Contains(text, howTo) {
			t.Errorf("%s as alice on her thread: failed=%v %q, want working memory not configured and %q", tool, failed, text, howTo)
		}
	}
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestStreamableHTTP: the /mcp endpoint of the HTTP server with the API's
// bearer tokens: no token, no session; a token's session sees its
// resources only.
func TestStreamableHTTP(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	connectAs := serveHTTP(t, e)
	as := connectAs("alice-secret-1")
	if failed, text := call(t, as, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "my favourite tea is sencha"}}}, nil); failed {
		t.Fatal(text)
	}
	e.SyncIndexes(ctx)
	var sr mcpserver.SearchOutput
	call(t, as, "memory_search", map[string]any{"query": "favourite tea"}, &sr)
	if len(sr.Hits) != 1 || !strings.Contains(sr.Hits[0].Content, "sencha") {
		t.Fatalf("search over HTTP: %+v", sr)
	}
	bs := connectAs("bob-secret-22")
	if failed, text := call(t, bs, "memory_search", map[string]any{"query": "favourite tea", "resourceId": "res-alice"}, nil); !failed || strings.Contains(text, "sencha") {
		t.Fatalf("bob searching alice over HTTP: failed=%v %q", failed, text)
	}
}
