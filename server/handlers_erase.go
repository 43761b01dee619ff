package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// canErase refuses a principal without erasure rights. It runs after the
// target was found (a foreign target is 404 before it is 403).
func canErase(p *Principal) error {
	if !p.Erase && p.EraseHint != "" { // no token: its own words (mnemo mcp's flag)
		return errorf(kindEraseOff, "", "%s", p.EraseHint)
	}
	if !p.Erase {
		return errorf(kindForbidden, "", "this token may not erase; give it \"erase\": true in the token file")
	}
	return nil
}

func (s *Server) deleteMessage(r *http.Request, p *Principal) (any, error) {
	return s.tenant(p).Erase(r.Context(), "message", r.PathValue("message"))
}

func (s *Server) deleteThread(r *http.Request, p *Principal) (any, error) {
	return s.tenant(p).Erase(r.Context(), "thread", r.PathValue("thread"))
}

func (s *Server) deleteResource(r *http.Request, p *Principal) (any, error) {
	return s.tenant(p).Erase(r.Context(), "resource", r.PathValue("resource"))
}

// Erase erases a message, thread or resource (kind) of the principal and
// everything derived from it, as the DELETE routes do. A thread id with no
// stored thread but runs of the principal's resources (a new
// conversation's first context, or one loaded just after an erasure) is
// erased as a thread with no messages: those runs go
// (engine.DeleteThreadOf). A foreign or unknown target is not found; a
// principal without erasure rights is then refused.
func (t Tenant) Erase(ctx context.Context, kind, id string) (*EraseResult, error) {
	var err error
	var owners []string // the thread's resources the principal may touch
	switch kind {
	case "message":
		_, err = t.Message(ctx, id)
	case "thread":
		owners, err = t.threadOwners(ctx, id)
	case "resource":
		err = t.Resource("resource", id)
	default:
		return nil, errorf(kindInvalid, "kind", "kind must be message, thread or resource")
	}
	if err != nil {
		return nil, err
	}
	if err := canErase(t.Principal); err != nil {
		return nil, err
	}
	ctx, cancel := detachErasure(ctx)
	defer cancel()
	switch kind {
	case "message":
		return eraseAnswer(t.Engine.DeleteMessages(ctx, id))
	case "thread":
		return eraseAnswer(t.Engine.DeleteThreadOf(ctx, id, owners...))
	}
	return eraseAnswer(t.Engine.DeleteResource(ctx, id))
}

// threadOwners returns the resource of the stored thread id, else the
// resources (those the principal may touch) whose runs are recorded under
// id (engine.Engine.ThreadlessOwners); not found when there is none.
func (t Tenant) threadOwners(ctx context.Context, id string) ([]string, error) {
	th, err := t.Thread(ctx, id)
	if err == nil {
		return []string{th.ResourceID}, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	all, oerr := t.Engine.ThreadlessOwners(ctx, id)
	if oerr != nil {
		return nil, oerr
	}
	var owners []string
	for _, r := range all {
		if t.Principal.Allows(r) {
			owners = append(owners, r)
		}
	}
	if len(owners) == 0 {
		return nil, err
	}
	return owners, nil
}

// maxDetachedErasure bounds an erasure whose caller's context has no
// deadline once the caller may no longer cancel it (detachErasure).
const maxDetachedErasure = DefaultRequestTimeout

// detachErasure is ctx for an erasure: not cancelled when the client hangs
// up (a DELETE whose client gave up after 0.6 s left its purge owed and the
// erased text in the lexical index's files until another erasure removed
// something), but still ended by ctx's deadline (the server's
// RequestTimeout), or after maxDetachedErasure when ctx has none.
func detachErasure(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(maxDetachedErasure)
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}

// eraseAnswer turns an erasure's result into the API's; an incomplete purge
// is a success (the data is unreadable) that says what is left to do.
func eraseAnswer(res *engine.EraseResult, err error) (*EraseResult, error) {
	incomplete := ""
	if errors.Is(err, engine.ErrEraseIncomplete) && res != nil {
		incomplete, err = err.Error(), nil
	}
	if errors.Is(err, engine.ErrThreadNotFound) {
		return nil, notFound("thread", "")
	}
	if err != nil {
		return nil, err
	}
	return &EraseResult{Messages: nonNil(res.Messages), NotFound: res.NotFound, Threads: res.Threads, Invalidated: res.Invalidated,
		MemCtxScrubbed: res.MemCtxScrubbed, Runs: res.Runs, WorkingMemory: res.WorkingMemory,
		WorkingMemoryInvalidated: res.WorkingMemoryInvalidated, Embeddings: res.Embeddings, IndexesRebuilt: res.IndexesRebuilt, Vacuumed: string(res.Vacuumed), PurgeIncomplete: incomplete,
		KeptDamaged: res.KeptDamaged, Warning: keptWarning(res.KeptDamaged)}, nil
}

// keptWarning is EraseResult.Warning for the kept files (copies of the
// database file, of its write-ahead log and -shm or of its indexes, set aside by a
// salvage or by an open that found the log damaged); "" when there are
// none.
func keptWarning(kept []string) string {
	if len(kept) == 0 {
		return ""
	}
	return fmt.Sprintf("not erased everywhere: %d kept file(s) in the data directory (%s), copies of the database file, of its write-ahead log and -shm or of its indexes, set aside by a salvage or by an open that found the write-ahead log damaged, may still hold what was erased; no erasure reaches them: the operator should delete them once no longer needed",
		len(kept), strings.Join(kept, ", "))
}
