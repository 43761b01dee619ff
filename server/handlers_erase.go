package server

import (
	"errors"
	"net/http"

	"github.com/mnemo-go/mnemo/engine"
)

// canErase refuses a principal without erasure rights. It runs after the
// target was found (a foreign target is 404 before it is 403).
func canErase(p *Principal) error {
	if !p.Erase {
		return errorf(kindForbidden, "", "this token may not erase; give it \"erase\": true in the token file")
	}
	return nil
}

func (s *Server) deleteMessage(r *http.Request, p *Principal) (any, error) {
	m, err := s.message(r.Context(), p, r.PathValue("message"))
	if err != nil {
		return nil, err
	}
	if err := canErase(p); err != nil {
		return nil, err
	}
	return eraseAnswer(s.cfg.Engine.DeleteMessages(r.Context(), m.ID))
}

func (s *Server) deleteThread(r *http.Request, p *Principal) (any, error) {
	th, err := s.thread(r.Context(), p, r.PathValue("thread"))
	if err != nil {
		return nil, err
	}
	if err := canErase(p); err != nil {
		return nil, err
	}
	return eraseAnswer(s.cfg.Engine.DeleteThread(r.Context(), th.ID))
}

func (s *Server) deleteResource(r *http.Request, p *Principal) (any, error) {
	res := r.PathValue("resource")
	if err := s.resource(p, "resource", res); err != nil {
		return nil, err
	}
	if err := canErase(p); err != nil {
		return nil, err
	}
	return eraseAnswer(s.cfg.Engine.DeleteResource(r.Context(), res))
}

// eraseAnswer turns an erasure's result into the API's; an incomplete purge
// is a success (the data is unreadable) that says what is left to do.
func eraseAnswer(res *engine.EraseResult, err error) (any, error) {
	incomplete := ""
	if errors.Is(err, engine.ErrEraseIncomplete) && res != nil {
		incomplete, err = err.Error(), nil
	}
	if errors.Is(err, engine.ErrThreadNotFound) {
		return nil, notFound("thread")
	}
	if err != nil {
		return nil, err
	}
	return EraseResult{Messages: nonNil(res.Messages), NotFound: res.NotFound, Threads: res.Threads, Invalidated: res.Invalidated,
		MemCtxScrubbed: res.MemCtxScrubbed, WorkingMemory: res.WorkingMemory, Embeddings: res.Embeddings, PurgeIncomplete: incomplete}, nil
}
