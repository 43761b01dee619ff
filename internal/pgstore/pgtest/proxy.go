package pgtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards loopback connections to the Postgres server of a DSN, so a
// test can take the database away from an engine: Hang keeps connections
// open and forwards nothing (a partition), Close closes the listener and
// every connection (a server that is gone). It is closed when the test
// ends.
type Proxy struct {
	ln    net.Listener
	dsn   string
	mu    sync.Mutex
	hung  bool
	conns []net.Conn
}

// NewProxy starts a proxy to dsn's server on a loopback port. It skips tb
// when dsn is not a URL (key=value DSNs have no host to replace).
func NewProxy(tb testing.TB, dsn string) *Proxy {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		tb.Skipf("the proxy needs a URL DSN: %q", dsn)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u.Host = ln.Addr().String()
	p := &Proxy{ln: ln, dsn: u.String()}
	tb.Cleanup(p.Close)
	go p.serve(target)
	return p
}

// DSN is dsn with the proxy's address as its host.
func (p *Proxy) DSN() string { return p.dsn }

func (p *Proxy) serve(target string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue // hung: the connection stays open, unanswered
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.track(s)
		go p.pipe(s, c)
		go p.pipe(c, s)
	}
}

// track keeps c for Close; it reports whether the proxy still forwards.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
	return !p.hung
}

// pipe copies from src to dst until Hang, then discards what src sends.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		hung := p.hung
		p.mu.Unlock()
		if hung {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// Hang stops forwarding: connections, old and new, stay open unanswered.
func (p *Proxy) Hang() {
	p.mu.Lock()
	p.hung = true
	p.mu.Unlock()
}

// Close closes the listener and every connection: new connections are
// refused.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}
