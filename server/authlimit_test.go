package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/server"
)

// clock is a settable clock for an AuthLimiter.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// newLimiter is an AuthLimiter of the default figures on clk, logging
// into the returned buffer.
func newLimiter(t *testing.T, clk *clock, opt server.AuthLimitOptions) (*server.AuthLimiter, *bytes.Buffer) {
	t.Helper()
	logs := &bytes.Buffer{}
	var mu sync.Mutex
	opt.Now, opt.Logger = clk.Now, slog.New(slog.NewJSONHandler(lockedWriter{&mu, logs}, nil))
	l, err := server.NewAuthLimiter(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l, logs
}

// TestAuthLimit: on a loopback server with a token file, a client address
// may send 10 unknown bearer tokens (401 each); the next request that
// sends a token, the right one too, is a 429 "too-many-failures" problem
// with Retry-After, its token not checked, until a second has passed,
// which earns one more attempt. Successful requests cost nothing (50 of
// them first leave all 10 attempts), a request without a token is a 401
// as ever. The refusals are logged once a minute at most, and counted in
// /metrics. Before, an address could try tokens without limit.
func TestAuthLimit(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC)}
	l, logs := newLimiter(t, clk, server.AuthLimitOptions{})
	h := newHarness(t, true, server.Config{AuthLimiter: l})
	for i := range 50 {
		if r := h.do("GET", "/v1/threads", aliceToken, nil); r.status != 200 {
			t.Fatalf("good request %d: %d %s", i, r.status, r.body)
		}
	}
	guess := func(i int) string { return fmt.Sprintf("guess-%08d", i) }
	for i := range 10 {
		if r := h.do("GET", "/v1/threads", guess(i), nil); r.status != 401 {
			t.Fatalf("failure %d: %d, want 401: %s", i+1, r.status, r.body)
		}
	}
	r := h.ok("GET", "/v1/threads", "/v1/threads", guess(10), nil, 429)
	p := r.problem(t)
	if p.Type != server.ProblemTypeBase+"too-many-failures" || p.Title != "Too many failed authentications" || r.header.Get("Retry-After") != "1" || strings.Contains(p.Detail, "guess") {
		t.Fatalf("over the limit: %+v, Retry-After %q", p, r.header.Get("Retry-After"))
	}
	if r := h.do("POST", "/v1/search", aliceToken, `{"query":"x"}`); r.status != 429 {
		t.Fatalf("the right token over the limit: %d, want 429 (a right guess must not show)", r.status)
	}
	if r := h.do("GET", "/v1/threads", "", nil); r.status != 401 {
		t.Fatalf("no token over the limit: %d, want 401", r.status)
	}
	clk.add(time.Second)
	if r := h.do("GET", "/v1/threads", aliceToken, nil); r.status != 200 {
		t.Fatalf("a second later, the right token: %d", r.status)
	}
	if r := h.do("GET", "/v1/threads", guess(11), nil); r.status != 401 {
		t.Fatalf("a second later, a guess: %d, want 401 (the earned attempt)", r.status)
	}
	if r := h.do("GET", "/v1/threads", guess(12), nil); r.status != 429 {
		t.Fatalf("the guess after: %d, want 429", r.status)
	}
	if n := strings.Count(logs.String(), `"msg":"too many failed authentications"`); n != 1 {
		t.Fatalf("%d log lines for 3 refusals within a minute, want 1: %s", n, logs)
	}
	clk.add(time.Minute)
	for i := range 10 {
		h.do("GET", "/v1/threads", guess(100+i), nil)
	}
	if r := h.do("GET", "/v1/threads", guess(200), nil); r.status != 429 {
		t.Fatalf("a minute later, past the burst again: %d", r.status)
	}
	if n := strings.Count(logs.String(), `"msg":"too many failed authentications"`); n != 2 {
		t.Fatalf("%d log lines after a minute, want 2: %s", n, logs)
	}
	clk.add(time.Second)
	r = h.do("GET", "/metrics", opsToken, nil)
	for _, want := range []string{"mnemo_auth_failures_total 21\n", "mnemo_auth_refused_total 4\n", "mnemo_auth_limited_addresses 1\n", `mnemo_http_requests_total{route="GET /v1/threads",code="429"} 3`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestAuthLimitAddresses: the limiter's memory is bounded. 10,000
// addresses failing once each leave MaxAddresses tracked (the least
// recent evicted), an address over its limit among the newest stays
// limited, and once Burst×Every has passed every idle address is dropped
// at the next failure. An IPv6 client counts as its /64.
func TestAuthLimitAddresses(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC)}
	l, _ := newLimiter(t, clk, server.AuthLimitOptions{MaxAddresses: 100})
	from := newRequest
	for i := range 10_000 {
		l.Fail(from(fmt.Sprintf("10.%d.%d.%d:40000", i>>16, (i>>8)&255, i&255)))
	}
	if got, want := l.Addresses(), 100; got != want {
		t.Fatalf("addresses=%d, want %d", got, want)
	}
	for range 10 {
		l.Fail(from("192.0.2.7:1"))
	}
	for i := range 99 {
		l.Fail(from(fmt.Sprintf("10.200.0.%d:1", i)))
	}
	if err := l.Check(from("192.0.2.7:2")); err == nil {
		t.Fatal("an address over its limit among the newest is not limited")
	}
	if err := l.Check(from("10.0.0.1:40000")); err != nil {
		t.Fatalf("an evicted address: %v", err)
	}
	clk.add(10 * time.Second)
	l.Fail(from("198.51.100.1:1"))
	if got, want := l.Addresses(), 1; got != want {
		t.Fatalf("after 10 s idle: addresses=%d, want %d", got, want)
	}
	for i := range 10 {
		l.Fail(from(fmt.Sprintf("[2001:db8::%x]:443", i+1)))
	}
	if l.Check(from("[2001:db8::ffff]:1")) == nil || l.Check(from("[2001:db8:0:1::1]:1")) != nil {
		t.Fatal("an IPv6 /64 is not one client")
	}
	if got, want := server.ClientAddr(from("[::ffff:192.0.2.9]:5")), "192.0.2.9"; got != want {
		t.Fatalf("ClientAddr of a mapped IPv4: %q, want %q", got, want)
	}
}

// newRequest is a request from addr (a RemoteAddr, host:port).
func newRequest(addr string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/threads", nil)
	r.RemoteAddr = addr
	return r
}
