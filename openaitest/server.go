package openaitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Paths the server answers, relative to the host (the client's BaseURL is
// URL, which already ends in /v1).
const (
	PathChat       = "/v1/chat/completions"
	PathEmbeddings = "/v1/embeddings"
)

// DefaultAPIKey is the key Client sends and the server expects unless
// WithAPIKey changes it.
const DefaultAPIKey = "sk-fake"

// Server is a running fake OpenAI endpoint. It is safe for concurrent use.
// New registers a cleanup that closes it, Start leaves that to the caller;
// Close is idempotent.
type Server struct {
	// URL is the base URL to give go-openai (openai.ClientConfig.BaseURL):
	// the httptest server's address followed by "/v1".
	URL string

	srv     *httptest.Server
	apiKey  string
	lenient bool
	now     func() time.Time

	mu          sync.Mutex
	replies     []Reply
	chatFn      ChatFunc
	embedFn     EmbedFunc
	embedDelay  time.Duration
	rerankFn    RerankFunc
	rerankDelay time.Duration
	requests    []Request
	violations  []string
	chatN       int
	closed      bool
}

// Request is one recorded HTTP request, in arrival order.
type Request struct {
	Method string      // the HTTP method, e.g. "POST"
	Path   string      // the URL path, e.g. PathChat
	Header http.Header // the request's headers, Authorization included
	Body   []byte      // the raw body as received
	Status int         // the status the server answered with
	Time   time.Time   // when it arrived, by the server's clock (WithClock)
}

// Option configures New and Start.
type Option func(*Server)

// WithAPIKey sets the bearer token the server requires and Client sends.
// An empty key disables the Authorization check.
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// Lenient makes protocol violations answer with errors as usual but not fail
// the test; Violations still lists them. Use it for tests that send bad
// requests on purpose.
func Lenient() Option { return func(s *Server) { s.lenient = true } }

// WithChat sets the chat responder (see SetChat).
func WithChat(fn ChatFunc) Option { return func(s *Server) { s.chatFn = fn } }

// WithEmbed sets the embed function (see SetEmbed).
func WithEmbed(fn EmbedFunc) Option { return func(s *Server) { s.embedFn = fn } }

// WithClock sets the clock for recorded times and the "created" field;
// nil means time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// New starts a fake server and registers its shutdown with tb.Cleanup. At
// cleanup, unless Lenient was given, every recorded violation is reported
// with tb.Errorf. The default embed function is HashEmbed(DefaultDims); there
// is no default chat responder, so chat requests need Enqueue or SetChat;
// the default re-rank function is WordOverlap.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := Start(opts...)
	tb.Cleanup(func() {
		s.Close()
		if s.lenient {
			return
		}
		for _, v := range s.Violations() {
			tb.Errorf("openaitest: %s", v)
		}
	})
	return s
}

// Start starts a fake server outside a test (for example the offline mode
// of examples/agentloop). The caller must Close it and may inspect
// Violations; nothing fails on its own.
func Start(opts ...Option) *Server {
	s := &Server{apiKey: DefaultAPIKey, embedFn: HashEmbed(DefaultDims), rerankFn: WordOverlap, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close shuts the server down, waiting for requests in flight. It is
// idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.srv.Close()
}

// Config returns a go-openai configuration for this server: BaseURL = URL,
// the server's API key and the httptest client.
func (s *Server) Config() openai.ClientConfig {
	cfg := openai.DefaultConfig(s.apiKey)
	cfg.BaseURL = s.URL
	cfg.HTTPClient = s.srv.Client()
	return cfg
}

// Client returns a real go-openai client talking to this server.
func (s *Server) Client() *openai.Client { return openai.NewClientWithConfig(s.Config()) }

// Enqueue appends canned chat replies; each chat request consumes the
// oldest one.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Pending reports how many enqueued replies are still unconsumed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

// SetChat sets the responder used for chat requests when the reply queue is
// empty; nil removes it.
func (s *Server) SetChat(fn ChatFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatFn = fn
}

// SetEmbed sets the embed function; nil makes every embeddings request a
// violation.
func (s *Server) SetEmbed(fn EmbedFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFn = fn
}

// Requests returns copies of every request received, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = bytes.Clone(r.Body)
		out[i] = r
	}
	return out
}

// Count reports how many requests arrived for path (PathChat,
// PathEmbeddings or any other path, whether or not it was valid).
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Path == path {
			n++
		}
	}
	return n
}

// ChatRequests decodes every chat request that was well-formed JSON, in
// arrival order.
func (s *Server) ChatRequests() []openai.ChatCompletionRequest {
	var out []openai.ChatCompletionRequest
	for _, r := range s.Requests() {
		if r.Path != PathChat {
			continue
		}
		var req openai.ChatCompletionRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}

// LastChat returns the newest well-formed chat request; ok is false when
// there is none.
func (s *Server) LastChat() (req openai.ChatCompletionRequest, ok bool) {
	all := s.ChatRequests()
	if len(all) == 0 {
		return req, false
	}
	return all[len(all)-1], true
}

// EmbedRequests decodes every well-formed embeddings request, in arrival
// order, with its input normalised to a list of strings.
func (s *Server) EmbedRequests() []EmbedRequest {
	var out []EmbedRequest
	for _, r := range s.Requests() {
		if r.Path != PathEmbeddings {
			continue
		}
		if req, err := decodeEmbed(r.Body); err == nil {
			out = append(out, req)
		}
	}
	return out
}

// Violations lists the protocol violations seen so far, each a sentence
// naming the request number and the rule.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// StatusError makes a responder or embed function answer with an HTTP
// status and an OpenAI-style error body
// {"error":{"message":…,"type":…,"code":…}}.
type StatusError struct {
	Status  int    // HTTP status, e.g. 429, 500, 503
	Message string // error.message
	Type    string // error.type; empty means derived from Status
	Code    string // error.code; optional
}

// Error implements error: "openaitest: status STATUS: MESSAGE".
func (e *StatusError) Error() string {
	return fmt.Sprintf("openaitest: status %d: %s", e.Status, e.Message)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(),
		Body: body, Time: s.now(),
	})
	s.mu.Unlock()

	rec := &statusRecorder{ResponseWriter: w}
	s.route(rec, r, idx, body)
	s.mu.Lock()
	s.requests[idx].Status = rec.status
	s.mu.Unlock()
}

func (s *Server) route(w *statusRecorder, r *http.Request, idx int, body []byte) {
	switch r.URL.Path {
	case PathChat, PathEmbeddings, PathRerank:
	default:
		s.fail(w, idx, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("unknown path %s %s", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		s.fail(w, idx, http.StatusMethodNotAllowed, "invalid_request_error", fmt.Sprintf("method %s on %s, want POST", r.Method, r.URL.Path))
		return
	}
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		s.fail(w, idx, http.StatusUnauthorized, "invalid_api_key", fmt.Sprintf("Authorization header %q, want Bearer <the configured key>", r.Header.Get("Authorization")))
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("Content-Type %q, want application/json", ct))
		return
	}
	switch r.URL.Path {
	case PathChat:
		s.chat(w, r, idx, body)
	case PathRerank:
		s.rerank(w, r, idx, body)
	default:
		s.embed(w, r, idx, body)
	}
}

// fail answers with an OpenAI-style error and records a violation.
func (s *Server) fail(w http.ResponseWriter, idx, status int, typ, msg string) {
	s.mu.Lock()
	s.violations = append(s.violations, fmt.Sprintf("request #%d: %s", idx+1, msg))
	s.mu.Unlock()
	writeError(w, &StatusError{Status: status, Message: msg, Type: typ})
}

// writeError answers err: a *RawResponse verbatim, a *StatusError with its
// status, anything else 500.
func writeError(w http.ResponseWriter, err error) {
	var raw *RawResponse
	if errors.As(err, &raw) {
		status := raw.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(raw.Body)
		return
	}
	var se *StatusError
	if !errors.As(err, &se) {
		se = &StatusError{Status: http.StatusInternalServerError, Message: err.Error()}
	}
	typ := se.Type
	if typ == "" {
		switch {
		case se.Status == http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case se.Status >= 500:
			typ = "server_error"
		default:
			typ = "invalid_request_error"
		}
	}
	e := map[string]any{"message": se.Message, "type": typ}
	if se.Code != "" {
		e["code"] = se.Code
	}
	writeJSON(w, se.Status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"openaitest: encode response","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// waited waits delay (none when ≤ 0) before a request is answered, and
// says false when the client gave up meanwhile: then nothing is answered.
func waited(r *http.Request, delay time.Duration) bool {
	if delay <= 0 {
		return true
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
