package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimit is a listener that keeps at most max connections open
// (Config.MaxConns). A connection accepted past the bound makes room by
// closing the open connection that has waited longest for a request: one
// kept alive between requests (http.StateIdle) or one whose first request
// has not arrived (http.StateNew); when every one is answering a request,
// Accept waits for one to finish. netutil.LimitListener (golang.org/x/net)
// only blocks Accept at the bound: connections kept alive and idle, which
// any client, without a token, can hold for the server's idle timeout and
// renew, would then keep every other client waiting.
type connLimit struct {
	net.Listener
	max int
	log *slog.Logger

	mu      sync.Mutex
	conns   map[net.Conn]*connEntry
	changed chan struct{} // a connection became idle or closed
	done    chan struct{} // closed by Close
	once    sync.Once

	closedIdle int       // idle connections closed since the last log line
	loggedAt   time.Time // when the last one was written
}

// connEntry is what connLimit knows of an open connection.
type connEntry struct {
	idle  bool      // waiting for a request: it may be closed for another
	since time.Time // since when
}

// connLogEvery spaces connLimit's log lines about connections it closed.
const connLogEvery = time.Minute

func newConnLimit(ln net.Listener, max int, log *slog.Logger) *connLimit {
	return &connLimit{Listener: ln, max: max, log: log, conns: map[net.Conn]*connEntry{},
		changed: make(chan struct{}, 1), done: make(chan struct{})}
}

// Accept returns the next connection once there is room for it.
func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if err := l.admit(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// admit records c, first closing the longest idle connection when the
// bound is reached, or waiting for one to become idle or close when none
// is.
func (l *connLimit) admit(c net.Conn) error {
	l.mu.Lock()
	for len(l.conns) >= l.max {
		if old := l.longestIdle(); old != nil {
			delete(l.conns, old)
			_ = old.Close()
			l.closedIdle++
			continue
		}
		l.mu.Unlock()
		select {
		case <-l.changed:
		case <-l.done:
			return net.ErrClosed
		}
		l.mu.Lock()
	}
	l.conns[c] = &connEntry{idle: true, since: time.Now()}
	l.logClosed()
	l.mu.Unlock()
	return nil
}

// longestIdle is the idle connection idle longest, or nil. Called with mu
// held.
func (l *connLimit) longestIdle() net.Conn {
	var old net.Conn
	var since time.Time
	for c, e := range l.conns {
		if e.idle && (old == nil || e.since.Before(since)) {
			old, since = c, e.since
		}
	}
	return old
}

// logClosed writes, at most once a connLogEvery, how many idle
// connections were closed to make room. Called with mu held.
func (l *connLimit) logClosed() {
	if l.closedIdle == 0 || time.Since(l.loggedAt) < connLogEvery {
		return
	}
	l.log.Warn("connection limit reached: closed the connections idle longest to serve new ones",
		"closed", l.closedIdle, "maxConnections", l.max)
	l.closedIdle, l.loggedAt = 0, time.Now()
}

// state is the http.Server's ConnState hook: it tells idle connections
// from busy ones, and forgets closed ones.
func (l *connLimit) state(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok { // closed by admit, or not accepted through l
		return
	}
	switch s {
	case http.StateNew, http.StateIdle:
		e.idle, e.since = true, time.Now()
	case http.StateActive:
		e.idle = false
		return
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Close closes the listener and ends an Accept waiting for room.
func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
