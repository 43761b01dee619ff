package server

import (
	"container/list"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of AuthLimitOptions.
const (
	// DefaultAuthBurst is how many failed authentications a client
	// address may make before it is limited: 10.
	DefaultAuthBurst = 10
	// DefaultAuthEvery is how often a limited address earns one more
	// attempt: one a second, 86,400 guesses a day at most, where a token
	// of 8 random letters and digits is one of 2.2e14.
	DefaultAuthEvery = time.Second
	// DefaultAuthAddresses bounds the addresses an AuthLimiter tracks at
	// once: 10,000 (about 2 MiB).
	DefaultAuthAddresses = 10_000
	// DefaultAuthLogEvery is how often a limited address's refusals are
	// logged: once a minute at most.
	DefaultAuthLogEvery = time.Minute
)

// AuthLimitOptions configure an AuthLimiter. The zero value of each field
// means its default.
type AuthLimitOptions struct {
	// Burst is how many failed authentications an address may make at
	// once; 0 means DefaultAuthBurst.
	Burst int
	// Every is how often an address earns one more attempt after the
	// burst (a token bucket refilled at that rate, up to Burst); 0 means
	// DefaultAuthEvery.
	Every time.Duration
	// MaxAddresses bounds the addresses tracked; 0 means
	// DefaultAuthAddresses. One more evicts the one that failed least
	// recently (an address idle for Burst×Every, whose bucket is full
	// again, is evicted first: it carries nothing).
	MaxAddresses int
	// LogEvery is how often the refusals of one limited address are
	// logged (a Warn line "too many failed authentications"); 0 means
	// DefaultAuthLogEvery.
	LogEvery time.Duration
	// Logger receives those lines; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// AuthLimiter bounds the failed authentications of each client address
// (a bearer token the token file does not hold, on /v1, /mcp and the
// inspector's pages, and the inspector's sign-in form): a token bucket of
// golang.org/x/time/rate per address, Burst failures, then one per Every.
// An address whose bucket is empty is refused before its token is
// checked (ErrTooManyFailures), the right token too: else a guesser would
// learn a right guess from the answer. A successful authentication costs
// nothing and refills nothing (a tenant's own token must not reset its
// budget for guessing others').
//
// The client address is the IP of the connection's peer (RemoteAddr),
// an IPv6 address's /64 (a host holds a whole /64); X-Forwarded-For,
// which anyone may send, is not read. Behind a reverse proxy every client
// has the proxy's address, and shares one budget.
//
// An AuthLimiter is safe for concurrent use. Its memory is bounded
// (AuthLimitOptions.MaxAddresses).
type AuthLimiter struct {
	opt      AuthLimitOptions
	mu       sync.Mutex
	byAddr   map[string]*list.Element
	order    *list.List // of *guesser, the most recent failure at the front
	failures atomic.Uint64
	refused  atomic.Uint64
}

// guesser is an address's bucket.
type guesser struct {
	addr    string
	bucket  *rate.Limiter
	last    time.Time // its last failure
	logged  time.Time // its last refusal logged
	refused int       // refusals since then
}

// NewAuthLimiter returns an AuthLimiter; it returns ErrInvalidConfig for
// a negative option.
func NewAuthLimiter(opt AuthLimitOptions) (*AuthLimiter, error) {
	if opt.Burst < 0 || opt.Every < 0 || opt.MaxAddresses < 0 || opt.LogEvery < 0 {
		return nil, fmt.Errorf("%w: AuthLimitOptions must not be negative", ErrInvalidConfig)
	}
	if opt.Burst == 0 {
		opt.Burst = DefaultAuthBurst
	}
	if opt.Every == 0 {
		opt.Every = DefaultAuthEvery
	}
	if opt.MaxAddresses == 0 {
		opt.MaxAddresses = DefaultAuthAddresses
	}
	if opt.LogEvery == 0 {
		opt.LogEvery = DefaultAuthLogEvery
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &AuthLimiter{opt: opt, byAddr: map[string]*list.Element{}, order: list.New()}, nil
}

// Check returns nil when r's client address may try to authenticate, else
// an error matching ErrTooManyFailures, which the API answers as a 429
// "too-many-failures" problem with Retry-After (RetryAfter gives the
// wait). The first refusal of an address, then one a LogEvery, is logged
// with the number refused since the last line.
func (l *AuthLimiter) Check(r *http.Request) error {
	addr := ClientAddr(r)
	now := l.opt.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.byAddr[addr]
	if !ok {
		return nil
	}
	g := e.Value.(*guesser)
	tokens := g.bucket.TokensAt(now)
	if tokens >= 1 {
		return nil
	}
	l.refused.Add(1)
	g.refused++
	wait := time.Duration(math.Ceil((1 - tokens) * float64(l.opt.Every)))
	if g.logged.IsZero() || now.Sub(g.logged) >= l.opt.LogEvery {
		l.opt.Logger.LogAttrs(r.Context(), slog.LevelWarn, "too many failed authentications", slog.String("remote", addr),
			slog.Int("refused", g.refused), slog.Int("burst", l.opt.Burst), slog.String("every", l.opt.Every.String()))
		g.logged, g.refused = now, 0
	}
	return &TooManyFailuresError{Wait: wait}
}

// Fail records a failed authentication of r's client address, taking one
// attempt from its bucket.
func (l *AuthLimiter) Fail(r *http.Request) {
	addr := ClientAddr(r)
	now := l.opt.Now()
	l.failures.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.byAddr[addr]
	if !ok {
		l.evict(now)
		e = l.order.PushFront(&guesser{addr: addr, bucket: rate.NewLimiter(rate.Every(l.opt.Every), l.opt.Burst)})
		l.byAddr[addr] = e
	}
	g := e.Value.(*guesser)
	g.bucket.AllowN(now, 1)
	g.last = now
	l.order.MoveToFront(e)
}

// evict drops the addresses idle long enough for their bucket to be full
// again, then, at MaxAddresses, the one that failed least recently, to
// make room for one more.
func (l *AuthLimiter) evict(now time.Time) {
	idle := time.Duration(l.opt.Burst) * l.opt.Every
	for e := l.order.Back(); e != nil; e = l.order.Back() {
		g := e.Value.(*guesser)
		if now.Sub(g.last) < idle && l.order.Len() < l.opt.MaxAddresses {
			return
		}
		l.order.Remove(e)
		delete(l.byAddr, g.addr)
	}
}

// Addresses returns how many client addresses l tracks: those that
// failed within Burst×Every, at most MaxAddresses.
func (l *AuthLimiter) Addresses() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// Failures returns the failed authentications l recorded.
func (l *AuthLimiter) Failures() uint64 { return l.failures.Load() }

// Refused returns the attempts l refused (each a 429).
func (l *AuthLimiter) Refused() uint64 { return l.refused.Load() }

// TooManyFailuresError is returned by AuthLimiter.Check for an address
// over its limit. It matches ErrTooManyFailures.
type TooManyFailuresError struct {
	// Wait is how long until the address may try again.
	Wait time.Duration
}

// Error says the address is refused and in how many whole seconds it may
// try again (RetryAfter of Wait).
func (e *TooManyFailuresError) Error() string {
	return fmt.Sprintf("server: too many failed authentications from this address: try again in %d s", RetryAfter(e.Wait))
}

// Is makes the error match ErrTooManyFailures.
func (e *TooManyFailuresError) Is(target error) bool { return target == ErrTooManyFailures }

// RetryAfter is d in whole seconds, rounded up, at least 1: the value of
// a Retry-After header.
func RetryAfter(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// ClientAddr is the address AuthLimiter counts r's failures under: the IP
// of the connection's peer, an IPv6 address as its /64 prefix; r's
// RemoteAddr as it is when it holds no IP.
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return r.RemoteAddr
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}
