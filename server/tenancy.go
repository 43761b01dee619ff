package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// Tenant resolves the threads, runs, messages and resources a principal
// names: the only way the HTTP handlers and the MCP tools reach them. Each
// lookup answers an error matching ErrNotFound both for what does not exist
// and for what belongs to a resource the principal may not touch, with a
// message naming only the id the caller gave. Describe gives the answer a
// caller may see.
type Tenant struct {
	// Engine is the open memory the lookups read; required.
	Engine *engine.Engine
	// Principal is who asks; required (the operator when the server has no
	// token file). Its Allows decides what is visible.
	Principal *Principal
}

func (s *Server) tenant(p *Principal) Tenant { return Tenant{Engine: s.cfg.Engine, Principal: p} }

func (s *Server) thread(ctx context.Context, p *Principal, id string) (*engine.Thread, error) {
	return s.tenant(p).Thread(ctx, id)
}

func (s *Server) resource(p *Principal, field, id string) error {
	return s.tenant(p).Resource(field, id)
}

func (s *Server) run(ctx context.Context, p *Principal, id string) (*journal.MemCtx, error) {
	return s.tenant(p).Run(ctx, id)
}

func (s *Server) message(ctx context.Context, p *Principal, id string) (*engine.Message, error) {
	return s.tenant(p).Message(ctx, id)
}

func (s *Server) runIDFree(ctx context.Context, p *Principal, id string) error {
	return s.tenant(p).RunIDFree(ctx, id)
}

// Thread returns a stored thread the principal may touch; an invalid id
// is an error on the path's field "thread" (a 400, Describe). A thread not
// stored, or another resource's, matches ErrNotFound.
func (t Tenant) Thread(ctx context.Context, id string) (*engine.Thread, error) {
	return t.ThreadIn(ctx, "thread", id)
}

// ThreadIn is Thread for an id given in field (a body member or query
// parameter such as "threadId"), which an invalid id's error names.
func (t Tenant) ThreadIn(ctx context.Context, field, id string) (*engine.Thread, error) {
	if !engine.ValidID(id) {
		return nil, badID(field, id, false)
	}
	th, err := t.Engine.GetThread(ctx, id)
	if errors.Is(err, engine.ErrThreadNotFound) || (err == nil && !t.Principal.Allows(th.ResourceID)) {
		return nil, notFound("thread", id)
	}
	return th, err
}

// NewID refuses id, given in field as the id of something a write stores
// under it (the thread of an append, the thread or resource of a
// working-memory update), when engine.ValidNewID does: an invalid id, or
// "." or "..", which no browser or JS client can put in a URL path. The
// error names field, and says the rule with field as its subject and
// what the id broke (engine.IDFault), as every id error does. A store
// written before may hold such ids: the reads and erasures take them
// (Thread, Resource).
func NewID(field, id string) error {
	if !engine.ValidNewID(id) {
		return badID(field, id, true)
	}
	return nil
}

// Resource checks a resource id the principal names (field names the
// input for an invalid id). Errors: an id no record can have is a 400
// naming field (Describe); a resource the principal may not touch matches
// ErrNotFound, as an unknown one would (a 404 titled "Resource outside
// this client's resources", with Principal.OutsideHint, when it has one).
func (t Tenant) Resource(field, id string) error {
	if !engine.ValidID(id) {
		return badID(field, id, false)
	}
	if !t.Principal.Allows(id) {
		if h := t.Principal.OutsideHint; h != "" {
			return &apiError{kind: kindOutside, detail: fmt.Sprintf("resource %q %s", id, h)}
		}
		return notFound("resource", id)
	}
	return nil
}

// DefaultResource is the resource an operation acts on when its caller
// may leave the resource out: resourceID when given; else the resource of
// thread threadID when it is stored and the principal may touch it; else
// the principal's only resource. It returns "" when none of these decides
// (an operator, or a token of several resources, naming no stored thread
// of theirs). POST /v1/search, POST /v1/threads/{thread}/messages and the
// MCP tools resolve the resource with it, so the two agree. threadField names the thread id's input (a body
// member "threadId", a path's "thread") in the error of an invalid id; a
// thread that is not found is no error (the principal's only resource
// then), any other failure of the lookup is returned.
func (t Tenant) DefaultResource(ctx context.Context, threadField, threadID, resourceID string) (string, error) {
	if resourceID != "" {
		return resourceID, nil
	}
	if threadID != "" {
		th, err := t.ThreadIn(ctx, threadField, threadID)
		switch {
		case err == nil:
			return th.ResourceID, nil
		case !errors.Is(err, ErrNotFound):
			return "", err
		}
	}
	if p := t.Principal; !p.All && len(p.Resources) == 1 {
		for r := range p.Resources {
			return r, nil
		}
	}
	return "", nil
}

// RequireResource is DefaultResource for an operation that cannot run
// without a resource (search, append, the MCP working-memory tools without
// a thread): when nothing decides, an invalid-input error naming the field
// resourceId.
func (t Tenant) RequireResource(ctx context.Context, threadField, threadID, resourceID string) (string, error) {
	r, err := t.DefaultResource(ctx, threadField, threadID, resourceID)
	if err == nil && r == "" {
		hint := cmp.Or(t.Principal.ResourceHint, "resourceId is required unless the thread is a stored one of yours or the token has one resource")
		err = errorf(kindInvalid, "resourceId", "%s", hint)
	}
	return r, err
}

// ThreadConflict is the error of a request that names a thread and a
// resource of the principal's that the thread does not belong to (a
// foreign thread or resource is not found before): a conflict (409)
// naming field, `thread "ID" belongs to another of your resources`.
func ThreadConflict(field, threadID string) error {
	return errorf(kindConflict, field, "thread %q belongs to another of your resources", threadID)
}

// Run returns the memctx record of a run of a resource the principal may
// touch. A run not recorded, or another resource's, is the 404 `run not
// found: "ID"`; one of the principal's resources whose record retention
// pruned (journal.RunPrunedError) says so after it (or, when the run
// dispatched calls, that it has none and what it dispatched, as mnemo
// memctx says it: RunPrunedError.Detail), and so does one whose
// thread was erased (journal.RunErasedError: `run not found: "ID": the
// run id's thread was erased`, as the engine's LoadContext says it) when
// its resource was not erased too (the tombstone then names no one: an
// operator's token gets it, a tenant's the plain 404).
func (t Tenant) Run(ctx context.Context, id string) (*journal.MemCtx, error) {
	if !engine.ValidID(id) {
		return nil, badID("run", id, false)
	}
	rec, err := t.Engine.Journal().MemCtx(ctx, id)
	var pruned *journal.RunPrunedError
	var erased *journal.RunErasedError
	switch {
	case errors.As(err, &pruned) && t.Principal.Allows(pruned.ResourceID):
		ae := notFound("run", id)
		ae.detail += ": " + pruned.Detail()
		return nil, ae
	case errors.As(err, &erased) && t.Principal.Allows(erased.ResourceID):
		ae := notFound("run", id)
		ae.detail += ": " + journal.RunErasedDetail
		return nil, ae
	}
	if errors.Is(err, journal.ErrNotFound) || (err == nil && !t.Principal.Allows(rec.ResourceID)) {
		return nil, notFound("run", id)
	}
	return rec, err
}

// runErasedConflict is the 409 of a request refused with
// journal.ErrRunErased (err) under run id: to a principal allowed the
// resource of the run's erased thread (the run's tenant, the operator),
// `the run id's thread was erased; choose another id`, on runId, as Run
// and the engine's LoadContext say it; to anyone else, and once the
// resource was erased too (its tombstone names no one but to the
// operator), err, which classify words as a run id of another
// conversation: another tenant learns nothing of the erasure.
func (t Tenant) runErasedConflict(ctx context.Context, id string, err error) error {
	var erased *journal.RunErasedError
	if _, jerr := t.Engine.Journal().MemCtx(ctx, id); errors.As(jerr, &erased) && t.Principal.Allows(erased.ResourceID) {
		return errorf(kindConflict, "runId", "%s; choose another id", journal.RunErasedDetail)
	}
	return err
}

// Message returns a stored message the principal may touch. Errors: an
// id no record can have is a 400 on "message" (Describe); a message not
// stored, or another resource's, matches ErrNotFound; the engine's.
func (t Tenant) Message(ctx context.Context, id string) (*engine.Message, error) {
	if !engine.ValidID(id) {
		return nil, badID("message", id, false)
	}
	ms, err := t.Engine.MessagesByID(ctx, "", id)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 || !t.Principal.Allows(ms[0].ResourceID) {
		return nil, notFound("message", id)
	}
	return &ms[0], nil
}

// RunIDFree refuses a run id whose record belongs to a resource the
// principal may not touch, with the answer a taken id of its own gets
// (409), so that replaceRun can never overwrite another tenant's record.
func (t Tenant) RunIDFree(ctx context.Context, id string) error {
	if id == "" || t.Principal.All {
		return nil
	}
	rec, err := t.Engine.Journal().MemCtx(ctx, id)
	if errors.Is(err, journal.ErrNotFound) || !engine.ValidID(id) {
		return nil
	}
	if err != nil {
		return err
	}
	if !t.Principal.Allows(rec.ResourceID) {
		return classify(journal.ErrRunOwned)
	}
	return nil
}
