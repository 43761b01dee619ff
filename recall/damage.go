package recall

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// This file turns damage inside bleve into errors. A garbled segment file
// makes zapx panic while reading it (in the caller's goroutine: a search,
// Count, IDs) or fail in scorch's background goroutines (the merger retries
// a failing merge forever, and a ForceMerge waits for it forever). Every
// bleve call of Lexical runs under guard, which recovers a panic; scorch
// reports its background failures to onAsyncError. Either marks the
// Lexical damaged: from then on its methods return an error matching
// ErrCorrupt at once, and waits that depend on scorch's background work
// (Purge) stop. The caller (the engine) quarantines the directory and
// rebuilds it from the authority.

// asyncErrorCallback is the name under which onAsyncError is registered
// with scorch; OpenLexical passes it in the index config.
const asyncErrorCallback = "mnemo-recall"

// BoltTimeout bounds how long opening an index directory waits for the
// file lock of its root.bolt. bbolt waits forever by default; the data
// directory's own lock (engine) is taken first, so this only guards
// against a process that holds the index without it.
const BoltTimeout = time.Second

// lexicals maps an index directory to its open Lexical, so that scorch's
// asynchronous error callback (which knows only the path) reaches it.
var lexicals sync.Map // path -> *Lexical

func init() {
	// scorch reads its registry at open; it must be filled before any
	// index opens, hence init (see scorch.RegistryAsyncErrorCallbacks).
	scorch.RegistryAsyncErrorCallbacks[asyncErrorCallback] = onAsyncError
	scorch.RegistryEventCallbacks[eventCallback] = onEvent
}

// eventCallback is the name under which onEvent is registered with
// scorch; OpenLexical passes it in the index config. An index's
// index_meta.json keeps it; a build that registers no such name (one
// before it) opens the index with no event callback, as before.
const eventCallback = "mnemo-recall-events"

// persisters maps the scorch index of an open Lexical to it, so that
// onEvent (which knows only the *scorch.Scorch) reaches it.
var persisters sync.Map // *scorch.Scorch -> *Lexical

// onEvent receives scorch's events: a persist that succeeded ends a
// refusal for lack of room (persist.go, Refused). It returns true, which
// lets scorch go on with what the event asks (a merge, a purge of old
// files).
func onEvent(ev scorch.Event) bool {
	if ev.Kind == scorch.EventKindPersisterProgress {
		if v, ok := persisters.Load(ev.Scorch); ok {
			v.(*Lexical).persisted()
		}
	}
	return true
}

// registerPersister makes onEvent reach l through idx's scorch index.
func (l *Lexical) registerPersister(idx bleve.Index) {
	if s := scorchOf(idx); s != nil {
		persisters.Store(s, l)
	}
}

// scorchOf returns idx's scorch index; nil when it has none.
func scorchOf(idx bleve.Index) *scorch.Scorch {
	if idx == nil {
		return nil
	}
	a, err := idx.Advanced()
	if err != nil {
		return nil
	}
	s, _ := a.(*scorch.Scorch)
	return s
}

// onAsyncError receives the errors of scorch's merger, persister and
// introducer goroutines (a panic they recovered, a merge or persist that
// failed). A failure there means a segment or the root file cannot be read
// or written: the index is marked damaged.
func onAsyncError(err error, path string) {
	if NoSpace(err) {
		// A full disk is no damage: scorch keeps the snapshot it could
		// not persist and retries it, and a process that stops first
		// leaves the index behind the store, which the next Open queues.
		// The batches waiting for that persist fail (persist.go).
		if v, ok := lexicals.Load(path); ok && isPersistError(err) {
			v.(*Lexical).persistFailed(err)
		}
		return
	}
	if strings.Contains(err.Error(), "cleanup error") {
		// scorch's persister reports a failure to remove files an older
		// snapshot no longer uses through the same callback (bleve v2.6.3
		// index/scorch/persister.go, removeOldData: "cleanup error: got err
		// removing old zap files"): the index in use is intact, so it is no
		// damage. Taken for damage since 3925b87, it quarantined a healthy
		// index (CI of 5c94e7e: TestIndexReopenRetried under -race).
		return
	}
	if v, ok := lexicals.Load(path); ok {
		v.(*Lexical).markDamaged(fmt.Errorf("background %w", err))
	}
}

// lexicalConfig is the scorch configuration of every on-disk index.
func lexicalConfig() map[string]any {
	return map[string]any{
		"asyncErrorCallbackName": asyncErrorCallback,
		"eventCallbackName":      eventCallback,
		// bolt's file lock on root.bolt waits forever by default; another
		// process holding the index must fail the open instead.
		"bolt_timeout":           BoltTimeout.String(),
		"scorchMergePlanOptions": lexicalMergePlan(),
		// Batch returns once its segment is in the index; batch waits for
		// the persist itself (persist.go: scorch's own wait broke the
		// index when the persist found the disk full).
		"unsafe_batch": true,
	}
}

// lexicalMergePlan is scorch's merge policy with wider tiers than its
// default (10 segments a tier, merged 10 at a time): 30. The drainer writes
// a segment per batch (up to 512 messages), and the default merged every
// message about twice on its way into a 100k index (merges were 5 % of the
// ingest's CPU, issue 14); with 30 a tier it is merged about once. Bleve
// answers no default search since the in-memory postings (it serves the
// BleveMatches A/B paths, Check and damage handling), so a few more
// segments to search cost little; the contents, and so every hit and
// score, are the same.
//
// Only these two fields are given: scorch decodes them over its own
// defaults (mergeplan.DefaultMergePlanOptions with the persister's
// in-memory merge size as FloorSegmentFileSize).
func lexicalMergePlan() map[string]any {
	return map[string]any{"MaxSegmentsPerTier": 30, "SegmentsPerMergeTask": 30}
}

// damageState records why a Lexical is damaged. The zero value is healthy.
type damageState struct {
	once   sync.Once
	ch     chan struct{} // closed when damaged; made by init
	err    error         // set before ch is closed
	notify atomic.Pointer[damageHook]
}

// damageHook is the function OnDamage set, called at most once.
type damageHook struct {
	once sync.Once
	fn   func(error)
}

// fire calls the hook's function with err, the first time only.
func (h *damageHook) fire(err error) { h.once.Do(func() { h.fn(err) }) }

func (d *damageState) init() { d.ch = make(chan struct{}) }

// markDamaged records the first damage of l and wakes whoever waits on it.
func (l *Lexical) markDamaged(err error) {
	l.damage.once.Do(func() {
		l.damage.err = fmt.Errorf("%w: %s: %w", ErrCorrupt, l.path, err)
		close(l.damage.ch)
		if h := l.damage.notify.Load(); h != nil {
			h.fire(l.damage.err)
		}
	})
}

// OnDamage makes l call fn once, with the error Damaged returns, when the
// index is marked damaged: from the goroutine that finds the damage
// (scorch's merger or persister in the background, or a search, count or
// batch of the caller's), or at once, from OnDamage's caller, when it
// already is. fn must not block: the merger waits for it. A later call
// replaces fn (nil: none). It is how the owner of an idle index learns of
// damage that its background work found, with no call of its own to
// return the error.
func (l *Lexical) OnDamage(fn func(err error)) {
	if fn == nil {
		l.damage.notify.Store(nil)
		return
	}
	h := &damageHook{fn: fn}
	l.damage.notify.Store(h)
	if err := l.Damaged(); err != nil {
		h.fire(err)
	}
}

// Damaged returns the error that marked the index damaged (it matches
// ErrCorrupt), or nil while it is healthy. A damaged index stays damaged:
// quarantine its directory and rebuild it.
func (l *Lexical) Damaged() error {
	select {
	case <-l.damage.ch:
		return l.damage.err
	default:
		return nil
	}
}

// guard runs fn, one call into bleve. A panic inside it marks l damaged
// and is returned as an error matching ErrCorrupt that names the panic; so
// is any call on an index already damaged, without calling fn.
func (l *Lexical) guard(fn func() error) (err error) {
	if derr := l.Damaged(); derr != nil {
		return derr
	}
	defer func() {
		if r := recover(); r != nil {
			l.markDamaged(fmt.Errorf("panic in bleve: %v", r))
			err = l.Damaged()
		}
	}()
	return fn()
}

// guardRead is guard for a read (a search, a count): bleve reads only
// local files, so an error other than the context's (or a closed index's)
// means they cannot be read — a garbled segment surfaces as an io.EOF or a
// decoding error as often as a panic — and marks l damaged too.
func (l *Lexical) guardRead(ctx context.Context, fn func() error) error {
	err := l.guard(fn)
	if err == nil || errors.Is(err, ErrCorrupt) || ctx.Err() != nil || errors.Is(err, bleve.ErrorIndexClosed) {
		return err
	}
	if NoSpace(err) {
		return err
	}
	l.markDamaged(fmt.Errorf("read failed: %w", err))
	return l.Damaged()
}

// register makes l reachable from scorch's error callback, which names
// the index by its store directory (bleve's <path>/store). It runs before
// bleve opens the directory: scorch's merger starts at once and may fail on
// a damaged segment before Open returns.
func (l *Lexical) register() {
	if l.path != "" {
		lexicals.Store(storePath(l.path), l)
	}
}

// unregister undoes register (when another Lexical took the path since,
// it stays).
func (l *Lexical) unregister() {
	if l.path != "" {
		lexicals.CompareAndDelete(storePath(l.path), l)
	}
	if s := scorchOf(l.idx); s != nil {
		persisters.CompareAndDelete(s, l)
	}
}

// storePath is where bleve keeps the scorch files of the index at path.
func storePath(path string) string { return filepath.Join(path, "store") }

// batch applies b and waits for it to be persisted, unless the index turns
// damaged meanwhile: scorch retries a failing persist forever, and the
// batch would wait with it (it then runs on in the background until Close).
// A failed batch marks the index damaged: bleve writes only local files, so
// a retry cannot succeed. A full disk is the exception: a batch that
// cannot be written for lack of room returns an error matching NoSpace,
// and the index stays whole (persist.go).
func (l *Lexical) batch(b *bleve.Batch) error {
	if err := l.Damaged(); err != nil {
		return err
	}
	persisted := l.awaitPersisted(b) // persist.go
	failed := l.persist.watch()
	done := make(chan error, 1)
	go func() { done <- l.guard(func() error { return l.idx.Batch(b) }) }()
	select {
	case err := <-done:
		if err == nil {
			return l.waitPersisted(persisted, failed)
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, bleve.ErrorIndexClosed) {
			// A batch reads the segments to find the documents it
			// replaces or deletes: a garbled one fails it (seen: a delete
			// batch on a damaged index), and a retry fails the same way.
			if NoSpace(err) {
				return err // the batch stays in the outbox, retried
			}
			l.markDamaged(fmt.Errorf("write failed: %w", err))
			err = l.Damaged()
		}
		return err
	case <-l.damage.ch:
		return l.damage.err
	}
}

// closeIndex closes idx, returning a panic inside bleve as an error.
func closeIndex(idx bleve.Index) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: panic while closing: %v", ErrCorrupt, r)
		}
	}()
	return idx.Close()
}

// NoSpace reports whether err is a write refused for lack of room on the
// disk (ENOSPC, or EDQUOT: a quota) or in a file (EFBIG: the file size
// limit, ulimit -f, or the file system's, 4 GiB on FAT32), also when
// bleve passed it on as text (its persister formats the error it got with
// %v).
func NoSpace(err error) bool {
	if err == nil {
		return false
	}
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if errors.Is(err, errno) || strings.Contains(err.Error(), errno.Error()) {
			return true
		}
	}
	return false
}
