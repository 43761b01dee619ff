package server

import (
	"encoding/json"
	"net/http"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/working"
)

// wmOrigin marks versions written through the HTTP API in a scope's history.
var wmOrigin = working.Origin{RunID: "mnemo-http-api"}

// wmKey resolves the working-memory key of a thread route (the thread's, or
// its resource's in resource scope) or of a resource route (threadID "").
func (s *Server) wmKey(r *http.Request, p *Principal) (*working.Memory, string, error) {
	mem, err := s.cfg.Engine.WorkingMemory()
	if err != nil {
		return nil, "", err
	}
	threadID, resourceID := r.PathValue("thread"), r.PathValue("resource")
	if threadID != "" {
		th, err := s.thread(r.Context(), p, threadID)
		if err != nil {
			return nil, "", err
		}
		resourceID = th.ResourceID
	} else if err := s.resource(p, "resource", resourceID); err != nil {
		return nil, "", err
	}
	key, err := mem.Key(threadID, resourceID)
	if err != nil {
		return nil, "", errorf(kindInvalid, "scope", "working memory is %s-scoped: use the /v1/threads/{thread}/working-memory route", mem.Scope())
	}
	return mem, key, nil
}

func (s *Server) getWM(r *http.Request, p *Principal) (any, error) {
	mem, key, err := s.wmKey(r, p)
	if err != nil {
		return nil, err
	}
	st, err := mem.Get(r.Context(), key)
	if err != nil {
		return nil, err
	}
	return toWM(st, nil), nil
}

func (s *Server) putWM(r *http.Request, p *Principal) (any, error) {
	mem, key, err := s.wmKey(r, p)
	if err != nil {
		return nil, err
	}
	var b WorkingMemoryUpdate
	if err := decodeBody(r, &b); err != nil {
		return nil, err
	}
	var res working.Result
	switch {
	case (b.Content == nil) == (b.Patch == nil):
		return nil, errorf(kindInvalid, "content", "send exactly one of content (the whole state) and patch (a JSON Merge Patch)")
	case b.Content != nil:
		res, err = mem.Set(r.Context(), key, *b.Content, wmOrigin)
	default:
		var raw []byte
		if raw, err = json.Marshal(b.Patch); err == nil {
			res, err = mem.Merge(r.Context(), key, json.RawMessage(raw), wmOrigin)
		}
	}
	if err != nil {
		return nil, err
	}
	return toWM(res.State, &res.Changed), nil
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
		out.Observations[i] = Observation{ID: o.ID, ThreadID: o.ThreadID, ResourceID: o.ResourceID, FromSeq: o.FromSeq, ToSeq: o.ToSeq,
			Level: o.Level, Content: o.Content, Sources: o.Sources, Untrusted: o.Untrusted, CreatedAt: o.CreatedAt,
			RetiredAt: o.RetiredAt, InvalidatedAt: o.InvalidatedAt}
	}
	return out, nil
}
