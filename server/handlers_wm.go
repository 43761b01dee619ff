package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/working"
)

// wmOrigin marks versions written through the HTTP API in a scope's history.
var wmOrigin = working.Origin{RunID: engine.RunIDHTTP}

// wmKey resolves the working-memory key of a thread (the thread's, or its
// resource's in resource scope) or, with threadID "", of a resource. The
// thread or resource is resolved first, so another tenant's answers as one
// that does not exist (not found) even when working memory is off; only
// the principal's own learns that (engine.ErrNoWorkingMemory).
func (t Tenant) wmKey(ctx context.Context, threadID, resourceID string) (*working.Memory, string, error) {
	if threadID != "" {
		th, err := t.Thread(ctx, threadID)
		if err != nil {
			return nil, "", err
		}
		resourceID = th.ResourceID
	} else if err := t.Resource("resource", resourceID); err != nil {
		return nil, "", err
	}
	mem, err := t.Engine.WorkingMemory()
	if err != nil {
		return nil, "", err
	}
	key, err := mem.Key(threadID, resourceID)
	if err != nil {
		return nil, "", errorf(kindInvalid, "scope", "working memory is %s-scoped: name a thread", mem.Scope())
	}
	return mem, key, nil
}

// WorkingMemory returns the working memory of a thread (threadID set) or of
// a resource (threadID "") of the principal, as the GET …/working-memory
// routes do. Errors: those of the routes, as Describe words them (a
// thread or resource not the principal's matching ErrNotFound; no working
// memory configured, engine.ErrNoWorkingMemory).
func (t Tenant) WorkingMemory(ctx context.Context, threadID, resourceID string) (*WorkingMemory, error) {
	mem, key, err := t.wmKey(ctx, threadID, resourceID)
	if err != nil {
		return nil, err
	}
	st, err := mem.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	w := toWM(st, nil)
	return &w, nil
}

// UpdateWorkingMemory replaces (content) or merge-patches (patch) the
// working memory of a thread or resource of the principal, validated by the
// configured schema, as the PUT …/working-memory routes do. origin names
// the writer in the scope's history. The thread's or resource's id must be
// engine.ValidNewID (NewID): the state is new data filed under it.
// Errors: those of the routes, as Describe words them (an update refused,
// working.Refused, a 422; a thread or resource not the principal's
// matching ErrNotFound; engine.ErrNoWorkingMemory).
func (t Tenant) UpdateWorkingMemory(ctx context.Context, threadID, resourceID string, b WorkingMemoryUpdate, origin working.Origin) (*WorkingMemory, error) {
	if threadID != "" {
		if err := NewID("thread", threadID); err != nil {
			return nil, err
		}
	} else if err := NewID("resource", resourceID); err != nil {
		return nil, err
	}
	mem, key, err := t.wmKey(ctx, threadID, resourceID)
	if err != nil {
		return nil, err
	}
	var res working.Result
	switch {
	case (b.Content == nil) == (b.Patch == nil):
		return nil, errorf(kindInvalid, "content", "send exactly one of content (the whole state) and patch (a JSON Merge Patch)")
	case b.Content != nil:
		var text string
		if text, err = b.Content.text(mem.Mode()); err != nil {
			return nil, err
		}
		if res, err = mem.Set(ctx, key, text, origin); errors.Is(err, working.ErrInvalidPatch) {
			// Not JSON, or not an object: the fault is content's.
			return nil, &apiError{kind: kindRefused, field: "content", detail: strings.TrimPrefix(err.Error(), "working: "), cause: err}
		}
	default:
		var raw []byte
		if raw, err = json.Marshal(b.Patch); err == nil {
			res, err = mem.Merge(ctx, key, json.RawMessage(raw), origin)
		}
	}
	if err != nil {
		return nil, err
	}
	w := toWM(res.State, &res.Changed)
	return &w, nil
}

func (s *Server) getWM(r *http.Request, p *Principal) (any, error) {
	return s.tenant(p).WorkingMemory(r.Context(), r.PathValue("thread"), r.PathValue("resource"))
}

func (s *Server) putWM(r *http.Request, p *Principal) (any, error) {
	var b WorkingMemoryUpdate
	if err := decodeBody(r, &b); err != nil {
		return nil, err
	}
	return s.tenant(p).UpdateWorkingMemory(r.Context(), r.PathValue("thread"), r.PathValue("resource"), b, wmOrigin)
}

func toWM(st working.State, changed *bool) WorkingMemory {
	w := WorkingMemory{Key: st.Key, Mode: string(st.Mode), Content: st.Content, Version: st.Version, Changed: changed}
	if !st.UpdatedAt.IsZero() {
		t := st.UpdatedAt
		w.UpdatedAt = &t
	}
	return w
}

func (s *Server) getThreadWM(r *http.Request, p *Principal) (any, error)   { return s.getWM(r, p) }
func (s *Server) putThreadWM(r *http.Request, p *Principal) (any, error)   { return s.putWM(r, p) }
func (s *Server) getResourceWM(r *http.Request, p *Principal) (any, error) { return s.getWM(r, p) }
func (s *Server) putResourceWM(r *http.Request, p *Principal) (any, error) { return s.putWM(r, p) }

func (s *Server) threadObservations(r *http.Request, p *Principal) (any, error) {
	th, err := s.thread(r.Context(), p, r.PathValue("thread"))
	if err != nil {
		return nil, err
	}
	return s.observations(r, observe.Filter{ThreadID: th.ID})
}

func (s *Server) resourceObservations(r *http.Request, p *Principal) (any, error) {
	res := r.PathValue("resource")
	if err := s.resource(p, "resource", res); err != nil {
		return nil, err
	}
	return s.observations(r, observe.Filter{ResourceID: res})
}

func (s *Server) observations(r *http.Request, f observe.Filter) (any, error) {
	switch v := r.URL.Query().Get("all"); v {
	case "", "false":
	case "true":
		f.All = true
	default:
		return nil, errorf(kindInvalid, "all", "all must be true or false")
	}
	obs, err := s.cfg.Engine.Observations(r.Context(), f)
	if err != nil {
		return nil, err
	}
	out := ObservationList{Observations: make([]Observation, len(obs))}
	for i, o := range obs {
		out.Observations[i] = ObservationOf(o)
	}
	return out, nil
}

// ObservationOf is o as the observations routes answer it (mnemo
// observations --json prints the same): without the journal key it was
// recorded under, with its source turns' date span when known.
func ObservationOf(o observe.Observation) Observation {
	out := Observation{ID: o.ID, ThreadID: o.ThreadID, ResourceID: o.ResourceID, FromSeq: o.FromSeq, ToSeq: o.ToSeq,
		Level: o.Level, Content: o.Content, Sources: o.Sources, Untrusted: o.Untrusted, CreatedAt: o.CreatedAt,
		RetiredAt: o.RetiredAt, InvalidatedAt: o.InvalidatedAt}
	if !o.FromTime.IsZero() {
		from, to := o.FromTime.UTC(), o.ToTime.UTC()
		out.FromTime, out.ToTime = &from, &to
	}
	return out
}
