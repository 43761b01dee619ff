package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// The lookups below are the only way handlers reach a thread, run, message
// or resource named by a request. Each answers notFound both for what does
// not exist and for what belongs to a resource the principal may not touch,
// with a detail naming only the id the request gave.

// thread returns a stored thread the principal may touch.
func (s *Server) thread(ctx context.Context, p *Principal, id string) (*engine.Thread, error) {
	if !engine.ValidID(id) {
		return nil, errorf(kindInvalid, "thread", "the thread id must be 1-128 characters of [A-Za-z0-9_.:@-]")
	}
	th, err := s.cfg.Engine.GetThread(ctx, id)
	if errors.Is(err, engine.ErrThreadNotFound) || (err == nil && !p.Allows(th.ResourceID)) {
		return nil, notFound(fmt.Sprintf("thread %q", id))
	}
	return th, err
}

// resource checks a resource id the principal names.
func (s *Server) resource(p *Principal, field, id string) error {
	if !engine.ValidID(id) {
		return errorf(kindInvalid, field, "%s must be 1-128 characters of [A-Za-z0-9_.:@-]", field)
	}
	if !p.Allows(id) {
		return notFound(fmt.Sprintf("resource %q", id))
	}
	return nil
}

// run returns the memctx record of a run of a resource the principal may
// touch.
func (s *Server) run(ctx context.Context, p *Principal, id string) (*journal.MemCtx, error) {
	if !engine.ValidID(id) {
		return nil, errorf(kindInvalid, "run", "the run id must be 1-128 characters of [A-Za-z0-9_.:@-]")
	}
	rec, err := s.cfg.Engine.Journal().MemCtx(ctx, id)
	if errors.Is(err, journal.ErrNotFound) || (err == nil && !p.Allows(rec.ResourceID)) {
		return nil, notFound(fmt.Sprintf("run %q", id))
	}
	return rec, err
}

// message returns a stored message the principal may touch.
func (s *Server) message(ctx context.Context, p *Principal, id string) (*engine.Message, error) {
	if !engine.ValidID(id) {
		return nil, errorf(kindInvalid, "message", "the message id must be 1-128 characters of [A-Za-z0-9_.:@-]")
	}
	ms, err := s.cfg.Engine.MessagesByID(ctx, "", id)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 || !p.Allows(ms[0].ResourceID) {
		return nil, notFound(fmt.Sprintf("message %q", id))
	}
	return &ms[0], nil
}

// runIDFree refuses a run id whose record belongs to a resource the
// principal may not touch, with the answer a taken id of its own gets
// (409), so that replaceRun can never overwrite another tenant's record.
func (s *Server) runIDFree(ctx context.Context, p *Principal, id string) error {
	if id == "" || p.All {
		return nil
	}
	rec, err := s.cfg.Engine.Journal().MemCtx(ctx, id)
	if errors.Is(err, journal.ErrNotFound) || !engine.ValidID(id) {
		return nil
	}
	if err != nil {
		return err
	}
	if !p.Allows(rec.ResourceID) {
		return classify(journal.ErrRunExists)
	}
	return nil
}
