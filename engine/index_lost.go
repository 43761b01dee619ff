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
	// reader: no recovery is owed; a KeepOutbox open found no room to
	// create the index (openWithoutIndex) and reads without it.
	reader bool
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
// the lexical index is damaged and not rebuilt yet: found damaged (by a
// search, a drain or scorch's background merger or persister) and its
// recovery not run yet, which the drainer starts at once (the error names
// the damage); or closed because the recovery of a damaged or removed
// index could not open a new one (its last attempt's error is named; the
// background drainer retries with its backoff, from 1 s to a minute, and
// at once after an append). Nil otherwise, while the quarantined index is
// rebuilt from the store (searches report it), and on Postgres. Searches
// meanwhile answer with no lexical hits: retrieval "unavailable: index
// closed", or the damage. Cheap: no I/O.
func (e *Engine) IndexUnavailable() error {
	e.idx.mu.RLock()
	defer e.idx.mu.RUnlock()
	if e.idx.ix != nil {
		if derr := e.idx.ix.Lexical().Damaged(); derr != nil {
			return fmt.Errorf("%w: the lexical index was found damaged (%w); it is quarantined and rebuilt in the background", ErrIndexUnavailable, derr)
		}
	}
	if e.idx.lost == nil {
		return nil
	}
	if e.idx.lost.reader {
		return fmt.Errorf("%w: no lexical index is open: this command only reads, and creating one found no room (%w); the next open with room creates and rebuilds it", ErrIndexUnavailable, e.idx.lost.last)
	}
	return fmt.Errorf("%w: the lexical index was closed after %v and could not be opened again (%v); it is retried in the background", ErrIndexUnavailable, e.idx.lost.cause, e.idx.lost.last)
}
