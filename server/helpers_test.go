package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// Tokens of the test token file: alice and bob are tenants of one resource
// each (alice may erase), ops is an operator.
const (
	aliceToken = "alice-secret-1"
	bobToken   = "bob-secret-22"
	opsToken   = "ops-secret-333"
)

const testTokens = `{"tokens": [
	{"name": "alice", "token": "alice-secret-1", "resources": ["res-alice"], "erase": true},
	{"name": "bob", "token": "bob-secret-22", "resources": ["res-bob"]},
	{"name": "ops", "token": "ops-secret-333", "resources": ["*"], "erase": true}
]}`

// harness is a real server on a loopback port over a real engine in
// t.TempDir().
type harness struct {
	t      *testing.T
	e      *engine.Engine
	srv    *server.Server
	ts     *httptest.Server
	doc    []byte
	schema *jsv.Compiler
	mu     sync.Mutex
	cache  map[string]*jsv.Schema
	logs   *bytes.Buffer
}

func newHarness(t *testing.T, withTokens bool, cfg server.Config) *harness {
	t.Helper()
	return newHarnessOn(t, withTokens, cfg, engine.Config{WorkingMemory: &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread}})
}

// newHarnessOn is newHarness over an engine opened with ecfg.
func newHarnessOn(t *testing.T, withTokens bool, cfg server.Config, ecfg engine.Config) *harness {
	t.Helper()
	return newHarnessFor(t, withTokens, cfg, enginetest.MustOpen(t, ecfg))
}

// newHarnessFor is newHarness over the engine e, which the caller closes.
func newHarnessFor(t *testing.T, withTokens bool, cfg server.Config, e *engine.Engine) *harness {
	t.Helper()
	cfg.Engine = e
	if withTokens {
		tok, err := server.ParseTokens([]byte(testTokens))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tokens = tok
	}
	logs := &bytes.Buffer{}
	var mu sync.Mutex
	cfg.Logger = slog.New(slog.NewJSONHandler(lockedWriter{&mu, logs}, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	h := &harness{t: t, e: e, srv: srv, ts: ts, doc: srv.OpenAPI(), cache: map[string]*jsv.Schema{}, logs: logs}
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(h.doc))
	if err != nil {
		t.Fatal(err)
	}
	h.schema = jsv.NewCompiler()
	if err := h.schema.AddResource("mem://openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	return h
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// response is one answer of the server.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (r response) problem(t *testing.T) server.Problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d Content-Type %q, want application/problem+json; body %s", r.status, ct, r.body)
	}
	var p server.Problem
	r.decode(t, &p)
	if p.Status != r.status || p.Type == "" || p.Title == "" {
		t.Fatalf("problem %+v does not match status %d", p, r.status)
	}
	return p
}

// do sends a request; body is JSON-encoded unless it is a string or nil.
func (h *harness) do(method, path, token string, body any) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// ok sends a request, wants status want and validates the answer against
// the OpenAPI document's schema for the operation's status.
func (h *harness) ok(method, pattern, path, token string, body any, want int) response {
	h.t.Helper()
	r := h.do(method, path, token, body)
	if r.status != want {
		h.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, want, r.body)
	}
	h.validate(method, pattern, r)
	return r
}

// validate checks a JSON answer against the document's schema for its
// operation (pattern is the route's path) and status.
func (h *harness) validate(method, pattern string, r response) {
	h.t.Helper()
	media := "application/json"
	if r.status >= 400 {
		media = "application/problem+json"
	}
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }
	loc := "mem://openapi.json#/paths/" + esc(pattern) + "/" + strings.ToLower(method) + "/responses/" + itoa(r.status) + "/content/" + esc(media) + "/schema"
	h.mu.Lock()
	sch, ok := h.cache[loc]
	if !ok {
		var err error
		sch, err = h.schema.Compile(loc)
		if err != nil {
			h.mu.Unlock()
			h.t.Fatalf("%s %s: no schema for status %d in the document: %v", method, pattern, r.status, err)
		}
		h.cache[loc] = sch
	}
	h.mu.Unlock()
	v, err := jsv.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		h.t.Fatalf("%s %s: answer is not JSON: %v: %s", method, pattern, err, r.body)
	}
	if err := sch.Validate(v); err != nil {
		h.t.Fatalf("%s %s: answer does not match the document's schema: %v\n%s", method, pattern, err, r.body)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// seed appends a conversation to a thread of a resource.
func (h *harness) seed(thread, resource, token string, texts ...string) {
	h.t.Helper()
	var msgs []map[string]any
	for i, s := range texts {
		msgs = append(msgs, map[string]any{"role": []string{"user", "assistant"}[i%2], "content": s})
	}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/"+thread+"/messages", token, map[string]any{"resourceId": resource, "messages": msgs}, 200)
	if err := h.e.SyncIndexes(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
