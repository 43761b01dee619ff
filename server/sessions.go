package server

import (
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Defaults of SessionOptions.
const (
	// DefaultSessionTTL is how long a sign-in session lasts from its
	// sign-in: 12 hours, the sign-in cookie's Max-Age. It does not slide:
	// using the session does not extend it.
	DefaultSessionTTL = 12 * time.Hour
	// DefaultSessionsPerToken bounds the sessions of one token: 32. The
	// 33rd sign-in with a token ends that token's oldest session.
	DefaultSessionsPerToken = 32
	// DefaultMaxSessions bounds the sessions of all tokens: 10,000, about
	// 2 MiB of memory (215 bytes a session, measured as the heap's growth
	// for 10,000 sessions of 400 tokens: its id's SHA-256, a principal
	// pointer, an expiry, a list element and the maps' share). A sign-in
	// beyond it ends the oldest session of any token.
	DefaultMaxSessions = 10000
)

// SessionIDBytes is the entropy of a session id: 32 bytes (256 bits) from
// crypto/rand, written in the cookie as 43 characters of unpadded
// base64url.
const SessionIDBytes = 32

// SessionOptions configure Sessions. The zero value of each field means
// its default.
type SessionOptions struct {
	// TTL is a session's lifetime from its sign-in; 0 means
	// DefaultSessionTTL.
	TTL time.Duration
	// PerToken bounds the sessions of one token (one Principal); 0 means
	// DefaultSessionsPerToken. A sign-in beyond it ends the token's oldest.
	PerToken int
	// Max bounds the sessions of all tokens; 0 means DefaultMaxSessions.
	// A sign-in beyond it ends the oldest session of any token.
	Max int
	// Now is the clock expiry is read on; nil means time.Now.
	Now func() time.Time
}

// Sessions are the inspector's sign-in sessions, kept in memory: a
// sign-in (Start) gets a random id, which the browser's SessionCookie
// holds instead of the bearer token; the server maps the id to the
// token's Principal until the session expires (SessionOptions.TTL) or is
// ended (End, the sign-out), so a copy of the cookie stops working when
// its browser signs out. Only the SHA-256 of each id is kept, never the
// id, so the memory holds nothing a cookie could be made from; the
// lookup is a map lookup by that hash (its timing can tell at most about
// the hash of an id, which does not give the id). The store lives as long
// as the process: a restart of mnemo serve ends every session.
//
// Memory is bounded: at most SessionOptions.PerToken sessions per token
// and SessionOptions.Max in all; expired sessions are dropped when looked
// up and, oldest first, at each sign-in.
//
// Sessions is safe for concurrent use by multiple goroutines.
type Sessions struct {
	ttl           time.Duration
	perToken, max int
	now           func() time.Time

	mu      sync.Mutex
	byHash  map[[32]byte]*session
	byToken map[*Principal][]*session // each token's, oldest first
	order   *list.List                // of *session, oldest first
}

// session is one sign-in: whose it is and until when.
type session struct {
	hash    [32]byte
	p       *Principal
	expires time.Time
	elem    *list.Element
}

// NewSessions returns an empty session store. It returns ErrInvalidConfig
// naming the field when TTL, PerToken or Max is negative.
func NewSessions(opt SessionOptions) (*Sessions, error) {
	if opt.TTL < 0 || opt.PerToken < 0 || opt.Max < 0 {
		return nil, fmt.Errorf("%w: SessionOptions.TTL, PerToken and Max must not be negative (0: the default), got %v, %d, %d", ErrInvalidConfig, opt.TTL, opt.PerToken, opt.Max)
	}
	s := &Sessions{ttl: opt.TTL, perToken: opt.PerToken, max: opt.Max, now: opt.Now,
		byHash: map[[32]byte]*session{}, byToken: map[*Principal][]*session{}, order: list.New()}
	if s.ttl == 0 {
		s.ttl = DefaultSessionTTL
	}
	if s.perToken == 0 {
		s.perToken = DefaultSessionsPerToken
	}
	if s.max == 0 {
		s.max = DefaultMaxSessions
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// TTL is a session's lifetime from its sign-in, which the sign-in
// cookie's Max-Age should match.
func (s *Sessions) TTL() time.Duration { return s.ttl }

// Start signs p in: it returns a new session id (SessionIDBytes random
// bytes, unpadded base64url) valid for TTL. It first drops expired
// sessions, then ends p's oldest session when p has PerToken already and
// the oldest of all when there are Max.
func (s *Sessions) Start(p *Principal) string {
	var raw [SessionIDBytes]byte
	rand.Read(raw[:]) // never returns an error (crypto/rand, Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	ss := &session{hash: sha256.Sum256([]byte(id)), p: p}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.dropExpired(now)
	if mine := s.byToken[p]; len(mine) >= s.perToken {
		s.end(mine[0])
	}
	if s.order.Len() >= s.max {
		s.end(s.order.Front().Value.(*session))
	}
	ss.expires = now.Add(s.ttl)
	ss.elem = s.order.PushBack(ss)
	s.byHash[ss.hash] = ss
	s.byToken[p] = append(s.byToken[p], ss)
	return id
}

// Lookup returns the principal of a live session id, or false for an id
// that was never started, was ended or has expired (an expired one is
// dropped).
func (s *Sessions) Lookup(id string) (*Principal, bool) {
	h := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.byHash[h]
	if !ok {
		return nil, false
	}
	if !s.now().Before(ss.expires) {
		s.end(ss)
		return nil, false
	}
	return ss.p, true
}

// End ends the session of id (the sign-out), reporting whether there was
// a live one: its cookie, or any copy of it, authenticates nothing after.
func (s *Sessions) End(id string) bool {
	h := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.byHash[h]
	if !ok {
		return false
	}
	live := s.now().Before(ss.expires)
	s.end(ss)
	return live
}

// Len is the number of sessions held, expired ones not yet dropped
// included.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// dropExpired ends the expired sessions at the front of the order. With
// one TTL for all, the order of sign-ins is the order of expiry (a clock
// set back can leave an expired one behind a live one until it is looked
// up or pushed out by the caps).
func (s *Sessions) dropExpired(now time.Time) {
	for e := s.order.Front(); e != nil; e = s.order.Front() {
		ss := e.Value.(*session)
		if now.Before(ss.expires) {
			return
		}
		s.end(ss)
	}
}

// end removes ss from the three indexes. s.mu is held.
func (s *Sessions) end(ss *session) {
	delete(s.byHash, ss.hash)
	s.order.Remove(ss.elem)
	mine := s.byToken[ss.p]
	if i := slices.Index(mine, ss); i >= 0 {
		mine = slices.Delete(mine, i, i+1)
	}
	if len(mine) == 0 {
		delete(s.byToken, ss.p)
	} else {
		s.byToken[ss.p] = mine
	}
}
