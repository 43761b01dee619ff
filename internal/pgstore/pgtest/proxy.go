package pgtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards loopback connections to the Postgres server of a DSN, so a
// test can take the database away from an engine, as a network or a server
// would, with no mock of the driver:
//
//   - Hang stops forwarding (a black hole, a partition, a server stopped by
//     SIGSTOP): connections, old and new, stay open; what either side sends
//     is held, unanswered. Resume delivers it and forwards again.
//   - HangReplies holds only what the server sends: statements run,
//     their answers do not arrive (with a Sever after: an answer lost).
//   - Sever closes every connection and keeps accepting new ones (a
//     server restart, a failover): the next connection reaches the server.
//   - Close closes the listener and every connection: new connections are
//     refused (a server that is gone).
//
// It is safe for concurrent use and closed when the test ends.
type Proxy struct {
	ln     net.Listener
	dsn    string
	target string

	mu   sync.Mutex
	gate chan struct{} // closed while forwarding; open (blocking) while hung
	// replies gates the server's side only (HangReplies): closed while
	// its bytes are forwarded.
	replies chan struct{}
	conns   map[net.Conn]bool
	closed  bool
}

// NewProxy starts a proxy to dsn's server on a loopback port. It skips tb
// when dsn is not a URL (key=value DSNs have no host to replace).
func NewProxy(tb testing.TB, dsn string) *Proxy {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		tb.Skipf("the proxy needs a URL DSN: %q", dsn)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: u.Host, gate: make(chan struct{}), replies: make(chan struct{}), conns: map[net.Conn]bool{}}
	close(p.gate)
	close(p.replies)
	u.Host = ln.Addr().String()
	p.dsn = u.String()
	tb.Cleanup(p.Close)
	go p.serve()
	return p
}

// DSN is dsn with the proxy's address as its host.
func (p *Proxy) DSN() string { return p.dsn }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			return
		}
		go p.connect(c)
	}
}

// connect dials the server for client c once the proxy forwards, then
// copies both ways.
func (p *Proxy) connect(c net.Conn) {
	if !p.wait(false) {
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	if !p.track(s) {
		return
	}
	go p.pipe(s, c, false)
	go p.pipe(c, s, true)
}

// track keeps c for Sever and Close; it closes c and reports false when
// the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = true
	return true
}

// wait blocks while the proxy is hung (or, for a reply, while replies
// are); it reports false when the proxy was closed meanwhile.
func (p *Proxy) wait(reply bool) bool {
	for {
		p.mu.Lock()
		gate, replies, closed := p.gate, p.replies, p.closed
		p.mu.Unlock()
		switch {
		case closed:
			return false
		case !opened(gate):
			<-gate
		case reply && !opened(replies):
			<-replies
		default:
			return true
		}
	}
}

// opened reports whether gate is closed: bytes pass.
func opened(gate chan struct{}) bool {
	select {
	case <-gate:
		return true
	default:
		return false
	}
}

// pipe copies from src to dst, holding what it read while the proxy is
// hung (and, when reply, while replies are), until either side closes;
// then it closes both.
func (p *Proxy) pipe(dst, src net.Conn, reply bool) {
	defer p.drop(dst, src)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if !p.wait(reply) {
			return
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// drop closes and forgets the connections.
func (p *Proxy) drop(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Hang stops forwarding: connections, old and new, stay open; what either
// side sends is held (the sender's writes block once the socket buffers
// are full), and nothing is answered until Resume.
func (p *Proxy) Hang() { p.hold(&p.gate) }

// hold shuts *gate (Hang's gate, or HangReplies' replies) unless it is
// shut already or the proxy is closed: the pipes waiting on it hold what
// they read.
func (p *Proxy) hold(gate *chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if opened(*gate) {
		*gate = make(chan struct{})
	}
}

// Resume forwards again, the bytes held first (both ways: it ends
// HangReplies too).
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range []chan struct{}{p.gate, p.replies} {
		select {
		case <-g:
		default:
			close(g)
		}
	}
}

// HangReplies holds what the server sends and forwards what clients
// send: the server runs (and commits) the statements, and their answers
// are lost if a Sever follows, as when a connection breaks between a
// commit and its acknowledgement.
func (p *Proxy) HangReplies() { p.hold(&p.replies) }

// Sever closes every connection open now, as a server restart does; the
// proxy keeps accepting (and, unless hung, forwarding) new ones.
func (p *Proxy) Sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Conns is how many connections (client and server sides) the proxy
// holds open.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Close closes the listener and every connection: new connections are
// refused. It is safe to call more than once.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
	for _, g := range []chan struct{}{p.gate, p.replies} {
		select {
		case <-g:
		default:
			close(g) // wake the waiters: they see closed
		}
	}
}
