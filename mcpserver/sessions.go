package mcpserver

import (
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/server"
)

// Defaults of Options' session bounds.
const (
	// DefaultMaxSessionsPerToken bounds the streamable HTTP sessions one
	// token keeps open at /mcp: 256.
	DefaultMaxSessionsPerToken = 256
	// DefaultMaxSessions bounds the streamable HTTP sessions of all tokens
	// together: 10,000, about 170 MiB (an idle session held some 17 KiB:
	// 20,000 sessions opened by one token took mnemo serve from 117 MB to
	// 457 MB of RSS, 2026-12-04).
	DefaultMaxSessions = 10000
)

// sessionBound keeps the streamable HTTP sessions of every principal
// within a bound per principal and one in all: opening one more closes the
// least recently used one, of the same principal when it is at its own
// bound, else of any. It learns of a session from the answer to the
// initialize that opened it (touching), when the SDK has connected it:
// the SDK's GetSessionID, called before, named sessions that closing could
// not find yet, and with initializes in flight at once 20,000 left some
// 11,000 open. Before, each initialize kept a session until it sat
// idle SessionTimeout (30 minutes), however many one token opened. It is
// safe for concurrent use.
type sessionBound struct {
	perToken, total int

	mu      sync.Mutex
	tick    uint64 // the clock of use: a counter, not a time
	byOwner map[*server.Principal]map[string]*boundSession
	n       int // sessions held in byOwner
}

// boundSession is one session the bound holds: its server (to close it)
// and when it was last used.
type boundSession struct {
	srv  *mcp.Server
	used uint64
}

func newSessionBound(perToken, total int) *sessionBound {
	if perToken <= 0 {
		perToken = DefaultMaxSessionsPerToken
	}
	if total <= 0 {
		total = DefaultMaxSessions
	}
	return &sessionBound{perToken: perToken, total: total, byOwner: map[*server.Principal]map[string]*boundSession{}}
}

// opened records p's new session id of server srv, once the SDK has
// connected it (so that it is among srv.Sessions(), and can be closed),
// first making room for it: past the bounds it closes the least recently
// used sessions. Initializes in flight at once may pass the bounds until
// each is recorded.
func (b *sessionBound) opened(p *server.Principal, srv *mcp.Server, id string) {
	b.mu.Lock()
	var evict []victim
	if len(b.byOwner[p]) >= b.perToken {
		b.prune(p)
		for len(b.byOwner[p]) >= b.perToken {
			evict = append(evict, b.removeLRU(p))
		}
	}
	if b.n >= b.total {
		for q := range b.byOwner {
			b.prune(q)
		}
		for b.n >= b.total {
			evict = append(evict, b.removeLRU(nil))
		}
	}
	if b.byOwner[p] == nil {
		b.byOwner[p] = map[string]*boundSession{}
	}
	if b.byOwner[p][id] == nil {
		b.n++
	}
	b.tick++
	b.byOwner[p][id] = &boundSession{srv: srv, used: b.tick}
	b.mu.Unlock()
	// Outside the lock: Close waits for the session's requests in flight.
	for _, v := range evict {
		v.close()
	}
}

// touch marks p's session id used now (a request named it).
func (b *sessionBound) touch(p *server.Principal, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.byOwner[p][id]; s != nil {
		b.tick++
		s.used = b.tick
	}
}

// prune forgets p's sessions that ended otherwise (idle past
// SessionTimeout, a DELETE, a failed initialize). Called with b.mu held.
func (b *sessionBound) prune(p *server.Principal) {
	own := b.byOwner[p]
	live := map[string]bool{}
	for _, s := range own {
		for ss := range s.srv.Sessions() {
			live[ss.ID()] = true
		}
		break // all of p's sessions are of one server
	}
	for id := range own {
		if !live[id] {
			delete(own, id)
			b.n--
		}
	}
	if len(own) == 0 {
		delete(b.byOwner, p)
	}
}

// victim is a session removed from the bound, to close.
type victim struct {
	srv *mcp.Server
	id  string
}

func (v victim) close() {
	for ss := range v.srv.Sessions() {
		if ss.ID() == v.id {
			ss.Close()
		}
	}
}

// removeLRU removes the least recently used session of p (of any
// principal when p is nil) and returns it. Called with b.mu held and at
// least one session held.
func (b *sessionBound) removeLRU(p *server.Principal) victim {
	var owner *server.Principal
	var id string
	var oldest *boundSession
	for q, own := range b.byOwner {
		if p != nil && q != p {
			continue
		}
		for sid, s := range own {
			if oldest == nil || s.used < oldest.used {
				owner, id, oldest = q, sid, s
			}
		}
	}
	delete(b.byOwner[owner], id)
	if len(b.byOwner[owner]) == 0 {
		delete(b.byOwner, owner)
	}
	b.n--
	return victim{srv: oldest.srv, id: id}
}

// touching serves p's requests to h, the SDK's handler of srv: it marks
// the session a request names as used, and records the session an
// initialize opened (the Mcp-Session-Id of the answer to a POST that named
// none) once h has answered it.
func (b *sessionBound) touching(p *server.Principal, srv *mcp.Server, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionHeader); id != "" {
			b.touch(p, id)
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
		if id := w.Header().Get(sessionHeader); id != "" && r.Method == http.MethodPost {
			b.opened(p, srv, id)
		}
	})
}

// sessionHeader names a streamable HTTP session, in a request and in the
// answer to the initialize that opened it.
const sessionHeader = "Mcp-Session-Id"
