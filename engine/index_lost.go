package engine

import "fmt"

// This file keeps the engine serving after a damage recovery
// (lexical_damage.go) closed the lexical index and could not open a new
// one: its directory removed under the engine (the quarantine's rename
// failed), a full disk (the new index's index_meta.json not written).
// The index stayed closed until a restart: searches answered
// "unavailable: index closed" with no hits, and /healthz said ok. Now the
// recovery is owed: every drain tries it again (the drainer's backoff, or
// at once after an append), a directory that is gone is created fresh and
// rebuilt from mnemo.db, and IndexUnavailable says so meanwhile.

// lostIndex is a recovery owed: the damage that closed the index, and
// the last attempt's error.
type lostIndex struct {
	cause error
	last  error
}

// lostCause returns the damage of a recovery owed, or nil.
func (s *indexState) lostCause() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.lost == nil {
		return nil
	}
	return s.lost.cause
}

// beforeReopen runs the test hook reopen, if set, and returns its error.
func (s *indexState) beforeReopen() error {
	if f := s.reopen.Load(); f != nil {
		return (*f)()
	}
	return nil
}

// IndexUnavailable returns an error matching ErrIndexUnavailable while
// the lexical and vector indexes are closed because the recovery of a
// damaged or removed lexical index could not open a new one (its last
// attempt's error is named; the background drainer retries with its
// backoff, from 1 s to a minute, and at once after an append); nil
// otherwise, and on Postgres. Searches meanwhile answer with no hits and
// retrieval "unavailable: index closed". Cheap: no I/O.
func (e *Engine) IndexUnavailable() error {
	e.idx.mu.RLock()
	defer e.idx.mu.RUnlock()
	if e.idx.lost == nil {
		return nil
	}
	return fmt.Errorf("%w: the lexical index was closed after %v and could not be opened again (%v); it is retried in the background", ErrIndexUnavailable, e.idx.lost.cause, e.idx.lost.last)
}
