package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// Defaults of Config.
const (
	// DefaultMaxBodyBytes bounds a request body: 4 MiB.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultShutdownTimeout is how long Serve lets in-flight requests
	// finish after its context ends.
	DefaultShutdownTimeout = 30 * time.Second
	// DefaultBodyTimeout is how long a request body may take to arrive.
	DefaultBodyTimeout = time.Minute
	// DefaultRequestTimeout is how long an API route's handler may run.
	DefaultRequestTimeout = time.Minute
	// MinRequestTimeout is the shortest Config.RequestTimeout New takes:
	// a shorter one answers requests that would succeed with 503
	// "timeout". With 1ns every request was a 503, a malformed body's 400
	// included, and with 1µs the first append of three; the first use of a
	// resource of 100k messages takes ~50 ms from its snapshot and 5.3 s
	// when an upgrade rebuilds it from the database, LoadContext's p99
	// 0.28 s on a loaded machine (README's Speed, BENCHMARKS.md), an
	// erasure or an observation on load (a model call) seconds. A second
	// is also Retry-After's unit.
	MinRequestTimeout = time.Second
	// DefaultAnswerTimeout is how long a client may take to receive an
	// API route's answer.
	DefaultAnswerTimeout = time.Minute
	// DefaultMaxConns is the most connections Serve keeps open by
	// default: 1024, or half the process's limit on open files when that
	// is lower (the engine's database and index need the rest).
	DefaultMaxConns = 1024
)

// Config configures a Server. The zero value of each field but Engine
// means its default.
type Config struct {
	// Engine is the memory the server serves. Required. The server does not
	// close it.
	Engine *engine.Engine
	// Tokens are the bearer tokens and their tenants; nil means no
	// authentication: every request acts as Operator.
	Tokens *Tokens
	// Logger receives access logs (one Info record per request) and
	// internal errors; nil means slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes bounds request bodies; 0 means DefaultMaxBodyBytes.
	// A larger body is answered 413 (at once for a Content-Length over
	// it), and up to 4 times MaxBodyBytes of its rest is read and
	// discarded so that the client reads the answer (lingerTooLarge).
	MaxBodyBytes int64
	// ShutdownTimeout bounds the graceful shutdown of Serve; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// BodyTimeout bounds the arrival of a request body, from the end of
	// its headers; 0 means DefaultBodyTimeout. A body still incomplete
	// then is answered 408 and the connection closed: before, a client
	// that stalled mid-body held its connection (and its goroutine)
	// forever. Streams (MCP's GET) have no body and no such bound.
	BodyTimeout time.Duration
	// RequestTimeout bounds how long an API route's handler runs, from
	// the end of the request's headers (its context's deadline: the
	// engine's calls honour it); 0 means DefaultRequestTimeout, and New
	// refuses one below MinRequestTimeout (1 s). A request
	// still running then is answered 503 "timeout" with Retry-After, and
	// what it committed stays. Before, a request on a database that had
	// stopped answering (Postgres behind a network black hole, or
	// stopped) waited for as long as its client did, which for a client
	// without a timeout was for ever. Mounted handlers (MCP, inspector)
	// have no such bound here: MCP's streams are long-lived, and the MCP
	// server bounds each tool call and resource read itself
	// (mcpserver.Options.ToolTimeout; mnemo serve gives it this value),
	// as the inspector does each page (inspector.Options.Timeout).
	RequestTimeout time.Duration
	// AnswerTimeout bounds how long an API route's answer (up to the
	// engine's limits.maxAnswerBytes, 16 MiB by default) may take to
	// reach the client, from the end of its handler's work (encoding the
	// answer included); 0 means DefaultAnswerTimeout. A client that has
	// not taken it all by then (it stopped reading) has its connection
	// closed; the access log says how many bytes were sent. Before, the
	// handler waited in the connection's write, the answer held in
	// memory, for as long as the client did not read, which could be for
	// ever. A mounted handler's answer (an inspector page, an /mcp answer
	// or event) has each write, and each flush, bounded alike from its
	// start: a page is one write; an event stream may wait between its
	// events for as long as it likes.
	AnswerTimeout time.Duration
	// MaxConns bounds the connections Serve keeps open; 0 means
	// DefaultMaxConns (1024, or half the process's limit on open files
	// when lower). Keep it below that limit. A connection past the bound
	// closes the one idle longest (kept alive between requests, or whose
	// first request has not arrived); when every one is answering a
	// request, the new one waits in the listen queue until one finishes.
	// Before, there was no bound: a client with no token opening
	// connections and leaving them idle ran the process out of files
	// ("accept4: too many open files") and every tenant waited.
	MaxConns int
	// AnyHost accepts a request without a token file whatever its Host
	// and Origin headers name. By default such a server (every request
	// the operator's) answers only requests addressed to a loopback host
	// (localhost, 127.0.0.0/8, ::1) from no browser origin or a loopback
	// one: a web page that rebinds its own name to 127.0.0.1 (DNS
	// rebinding) read and erased every resource's memory of a tokenless
	// mnemo serve. A token file makes the bearer token the guard instead.
	AnyHost bool
	// Version is reported by /healthz and the OpenAPI document's
	// info.version; "" means "dev".
	Version string
	// Mount adds handlers under extra patterns (the MCP endpoint, the
	// inspector) with the server's authentication: each gets the request's
	// Principal. Patterns must not collide with the API's.
	Mount map[string]func(p *Principal) http.Handler
	// LoginPath, when set, is where a browser (a GET or HEAD accepting text/html)
	// is sent when a page of CookieMount needs a token it lacks, instead
	// of a 401 problem (another mount, such as /mcp, answers the 401: the
	// sign-in's cookie would not open it): the inspector's sign-in page,
	// with the page asked for in
	// the query parameter "next" (LoginPath?next=/ui/threads/t; the
	// sign-in page checks it before it goes there).
	LoginPath string
	// Public adds handlers that need no token (the inspector's sign-in
	// page), with access logs. They must not reveal tenant data.
	Public map[string]http.Handler
	// CookieMount is the Mount pattern whose GET (and HEAD) requests the SessionCookie
	// may authenticate (the inspector's "/ui/", where its sign-in page
	// sets the cookie): a request with no Authorization header is then
	// authenticated by the cookie's session (Sessions). "" means the cookie
	// authenticates no request. The API, the other mounts (/mcp) and
	// every write need the bearer token. New returns ErrInvalidConfig when
	// it is not a key of Mount, or when it is set with Tokens but no
	// Sessions.
	CookieMount string
	// AuthLimiter bounds failed authentications per client address (a
	// bearer token not in Tokens): past its burst, an address's requests
	// that send a token are answered 429 with Retry-After until it earns
	// another attempt. nil means one of the defaults (10 failures, then
	// one a second; DefaultAuthBurst, DefaultAuthEvery) logging to
	// Logger. Give the inspector's sign-in (Public) the same limiter, so
	// that the form and the API share one budget. Unused without Tokens.
	AuthLimiter *AuthLimiter
	// Sessions are the sign-in sessions the SessionCookie names, which the
	// inspector's sign-in starts and its sign-out ends (the same store
	// must be given to both); their principals must be of Tokens. nil
	// means the cookie authenticates no request.
	Sessions *Sessions
}

// Server serves the HTTP API over one engine. It is safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	mux     *http.ServeMux
	metrics *metricsSet
	openapi []byte

	// crossOrigin refuses a browser's write from another origin to a
	// server without a token file (checkLoopbackHost).
	crossOrigin *http.CrossOriginProtection

	// stopping is closed when Serve begins its shutdown: long-lived
	// streams of mounted handlers (MCP's SSE GET) end then, so that they
	// do not hold the shutdown for its whole timeout.
	stopping     chan struct{}
	stoppingOnce sync.Once

	// running counts the requests Serve's handler is answering, for the
	// error of a shutdown that outlasts Config.ShutdownTimeout and for
	// Serve to wait for once it has cut them off.
	running atomic.Int64
}

// CutOffWait bounds how long Serve waits, after a shutdown past
// Config.ShutdownTimeout has cut the running requests off (their contexts
// ended, their connections closed), for their handlers to return, so that
// the caller closing the engine next does not close it under them. A
// handler that ignores its context longer is left running. (mnemo serve's
// 20 s drain plus this leaves 3 s of its 25 s stop grace for closing the
// engine.)
const CutOffWait = 2 * time.Second

// New builds a Server: the mux from the route table, the OpenAPI document
// and the metrics. It returns ErrInvalidConfig without an engine, with a
// negative limit or with a RequestTimeout below MinRequestTimeout.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, fmt.Errorf("%w: Engine is required", ErrInvalidConfig)
	}
	if cfg.MaxBodyBytes < 0 || cfg.ShutdownTimeout < 0 || cfg.BodyTimeout < 0 || cfg.RequestTimeout < 0 || cfg.AnswerTimeout < 0 || cfg.MaxConns < 0 {
		return nil, fmt.Errorf("%w: MaxBodyBytes, ShutdownTimeout, BodyTimeout, RequestTimeout, AnswerTimeout and MaxConns must not be negative", ErrInvalidConfig)
	}
	if cfg.RequestTimeout > 0 && cfg.RequestTimeout < MinRequestTimeout {
		return nil, fmt.Errorf("%w: RequestTimeout %s is below %s, the shortest (MinRequestTimeout: a shorter one cuts off requests that would succeed); 0 means the default, %s",
			ErrInvalidConfig, cfg.RequestTimeout, MinRequestTimeout, DefaultRequestTimeout)
	}
	if _, ok := cfg.Mount[cfg.CookieMount]; cfg.CookieMount != "" && !ok {
		return nil, fmt.Errorf("%w: CookieMount %q is not a pattern of Mount", ErrInvalidConfig, cfg.CookieMount)
	}
	if cfg.CookieMount != "" && cfg.Tokens != nil && cfg.Sessions == nil {
		return nil, fmt.Errorf("%w: CookieMount %q needs Sessions with a token file (the cookie holds a session id)", ErrInvalidConfig, cfg.CookieMount)
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.AnswerTimeout == 0 {
		cfg.AnswerTimeout = DefaultAnswerTimeout
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = defaultMaxConns(fileLimit())
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	var err error
	s := &Server{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), crossOrigin: http.NewCrossOriginProtection(), stopping: make(chan struct{})}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.cfg.AuthLimiter == nil {
		if s.cfg.AuthLimiter, err = NewAuthLimiter(AuthLimitOptions{Logger: s.log}); err != nil {
			return nil, err
		}
	}
	s.metrics = newMetrics(cfg.Engine)
	doc, err := buildOpenAPI(routes, cfg.Version)
	if err != nil {
		return nil, fmt.Errorf("server: openapi: %w", err)
	}
	s.openapi = doc
	for _, rt := range routes {
		s.mux.Handle(rt.pattern(), s.wrap(rt))
	}
	for pattern, h := range cfg.Mount {
		s.mux.Handle(pattern, s.wrapMount(pattern, h))
	}
	for pattern, h := range cfg.Public {
		s.mux.Handle(pattern, s.wrapPublic(pattern, h))
	}
	return s, nil
}

// defaultMaxConns is DefaultMaxConns, or half of files (the process's
// limit on open files, 0 when unknown) when that is lower.
func defaultMaxConns(files int) int {
	if files > 0 && files/2 < DefaultMaxConns {
		return max(files/2, 1)
	}
	return DefaultMaxConns
}

// Handler returns the server's root handler. A request no route takes is
// answered with problem details too: 404 for an unknown path, 405 with the
// Allow header for a known path and another method. Every request leaves
// one access-log line; one that no route or mount takes (one of those, a
// refused Host or origin, a redirect to the cleaned path) is logged under
// the route "-", with the token "-" (it is not authenticated).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveRoot) }

// routeMethods are the methods the route table uses, to tell an unknown
// path from a known path asked with another method.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete}

func (s *Server) serveRoot(rw http.ResponseWriter, r *http.Request) {
	start := time.Now()
	r, body := trackBody(r)
	w := &statusWriter{ResponseWriter: rw, body: body}
	defer func() {
		// Before, these left no line: a scan of paths, or a rebinding
		// page's refused requests, went unseen.
		if !w.logged {
			s.observe(r, "-", w, "-", start)
		}
	}()
	defer s.recoverPanic(w, r)
	if err := s.checkLoopbackHost(r); err != nil { // loopback.go
		writeProblem(w, r, s.log, err)
		return
	}
	if uncleanPath(r.URL.EscapedPath()) { // an escaped dot (%2e: a dot id) is no dot segment
		writeProblem(w, r, s.log, errorf(kindInvalid, "", "the path %s is not in its canonical form (an empty segment, '//', or a '.' or '..' segment): an id left empty? Give every id", r.URL.EscapedPath()))
		return
	}
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(w, r)
		s.lingerTooLarge(w, r) // bodylimit.go
		return
	}
	var allow []string
	for _, m := range routeMethods {
		rr := r.Clone(r.Context())
		rr.Method = m
		if _, pattern := s.mux.Handler(rr); pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		writeProblem(w, r, s.log, errorf(kindNotFound, "", "no route %s", r.URL.EscapedPath()))
		return
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeProblem(w, r, s.log, errorf(kindMethod, "", "%s %s: this path takes %s", r.Method, r.URL.EscapedPath(), strings.Join(allow, ", ")))
}

// uncleanPath reports whether p, a request's escaped path, is not its
// own cleaned form (path.Clean, its trailing slash kept):
// "/v1/threads//messages", "/v1/./threads", "/v1/threads/a/../b"; an
// escaped dot ("%2e", a dot id) is no dot segment. net/http's ServeMux answered such a path with a
// 307 to the cleaned one, and a client that follows it (curl -L, most
// HTTP libraries) sent its request there: DELETE /v1/threads//messages,
// a thread id left empty, erased the thread named "messages" (readme47).
// Such a path is refused instead, with nothing done.
func uncleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c != p
}

// recoverPanic answers a handler's panic as a 500 problem (the panic and
// its stack go to the log, not to the caller) instead of net/http's
// dropped connection, which a client sees as no answer at all.
// http.ErrAbortHandler (a deliberate abort) is raised again.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	s.log.LogAttrs(r.Context(), slog.LevelError, "request panicked", slog.String("path", r.URL.EscapedPath()),
		slog.String("panic", fmt.Sprint(p)), slog.String("stack", string(debug.Stack())))
	writeProblem(w, r, s.log, &apiError{kind: kindInternal, detail: "the request failed; the server log has the cause"})
}

// OpenAPI returns the OpenAPI 3.1 document served at /openapi.json.
func (s *Server) OpenAPI() []byte { return s.openapi }

// Serve answers requests on ln, at most Config.MaxConns connections at
// once, until ctx ends, then shuts down gracefully:
// it stops accepting, lets in-flight requests finish (at most
// Config.ShutdownTimeout) and returns nil. When requests are still running
// then, it closes their connections, which ends their contexts (they get
// no answer; what they committed stays stored), waits at most CutOffWait
// for their handlers to return, and returns an error matching
// ErrShutdownTimeout that says how many: "server: shutdown timed
// out: 1 request was still running after 20s; its connection was closed
// without an answer (what it committed stays)". It returns the listener's
// error if serving fails otherwise.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	h := s.Handler()
	// Every request's context derives from base, which a shutdown past
	// its timeout cancels: closing a connection ends its request's context
	// only once the handler has read the whole body.
	base, cutOff := context.WithCancel(context.Background())
	defer cutOff()
	hs := &http.Server{
		BaseContext: func(net.Listener) context.Context { return base },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.running.Add(1)
			defer s.running.Add(-1)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	limited := newConnLimit(ln, s.cfg.MaxConns, s.log) // connlimit.go
	hs.ConnState = limited.state
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limited) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight requests", "timeout", s.cfg.ShutdownTimeout.String())
	s.stoppingOnce.Do(func() { close(s.stopping) })
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		n := s.running.Load()
		cutOff()   // the requests still running end,
		hs.Close() // and their connections;
		left := s.awaitHandlers(CutOffWait)
		return shutdownTimedOut(n, left, s.cfg.ShutdownTimeout)
	}
	if err != nil {
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}

// awaitHandlers waits at most d for the running handlers to return
// (looking every 10 ms: a sync.WaitGroup may not take an Add from zero
// while waited for, and a request may still begin) and returns how many
// had not.
func (s *Server) awaitHandlers(d time.Duration) int64 {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(d)
	for s.running.Load() > 0 && time.Now().Before(deadline) {
		<-tick.C
	}
	return s.running.Load()
}

// shutdownTimedOut is Serve's error when n requests were still running
// after the shutdown's timeout, left of them still running CutOffWait after
// they were cut off: what happened to them, not "context deadline
// exceeded".
func shutdownTimedOut(n, left int64, timeout time.Duration) error {
	var err error
	switch n {
	case 0: // a connection busy outside a handler
		return fmt.Errorf("%w: connections were still busy after %s and were closed", ErrShutdownTimeout, timeout)
	case 1:
		err = fmt.Errorf("%w: 1 request was still running after %s; its connection was closed without an answer (what it committed stays)", ErrShutdownTimeout, timeout)
	default:
		err = fmt.Errorf("%w: %d requests were still running after %s; their connections were closed without an answer (what they committed stays)", ErrShutdownTimeout, n, timeout)
	}
	if left > 0 {
		err = fmt.Errorf("%w; %d still running %s after being cut off", err, left, CutOffWait)
	}
	return err
}
