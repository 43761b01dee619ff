package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// PathRerank is the cross-encoder re-rank path (Cohere, Jina, vLLM,
// llama.cpp's server): POST {model, query, documents} answered
// {results: [{index, relevance_score}]}.
const PathRerank = "/v1/rerank"

// RerankRequest is the body of a re-rank request.
type RerankRequest struct {
	Model     string   `json:"model"`     // the model asked for; never empty
	Query     string   `json:"query"`     // the text the documents are scored against
	Documents []string `json:"documents"` // the texts to score, in request order
}

// RerankFunc scores req's documents against its query: one score per
// document, in order. Returning a *StatusError answers with that status, a
// *RawResponse sends its body verbatim, any other error answers 500.
type RerankFunc func(req RerankRequest) ([]float64, error)

// WordOverlap is the default RerankFunc: each document scores the number
// of distinct words (lower-cased, split on anything not a letter or digit)
// it shares with the query. It is deterministic and orders documents as a
// test expects without a model.
func WordOverlap(req RerankRequest) ([]float64, error) {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 127)
		}) {
			m[w] = true
		}
		return m
	}
	q := words(req.Query)
	out := make([]float64, len(req.Documents))
	for i, d := range req.Documents {
		for w := range words(d) {
			if q[w] {
				out[i]++
			}
		}
	}
	return out, nil
}

// WithRerank sets the re-rank function (see SetRerank).
func WithRerank(fn RerankFunc) Option { return func(s *Server) { s.rerankFn = fn } }

// SetRerank sets the re-rank function; nil makes every re-rank request a
// violation.
func (s *Server) SetRerank(fn RerankFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rerankFn = fn
}

// SetRerankDelay makes every re-rank request wait d before answering, or
// until the client gives up.
func (s *Server) SetRerankDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rerankDelay = d
}

// RerankRequests decodes every well-formed re-rank request, in arrival
// order.
func (s *Server) RerankRequests() []RerankRequest {
	var out []RerankRequest
	for _, r := range s.Requests() {
		var req RerankRequest
		if r.Path == PathRerank && json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}

func (s *Server) rerank(w http.ResponseWriter, r *http.Request, idx int, body []byte) {
	var req RerankRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Model == "" || req.Query == "" || len(req.Documents) == 0 {
		s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("re-rank body must be {model, query, documents} with each set (%v)", err))
		return
	}
	s.mu.Lock()
	fn, delay := s.rerankFn, s.rerankDelay
	s.mu.Unlock()
	if fn == nil {
		s.fail(w, idx, http.StatusInternalServerError, "server_error", "a re-rank request arrived but no re-rank function is set (SetRerank)")
		return
	}
	if !waited(r, delay) {
		return
	}
	scores, err := fn(req)
	if err != nil {
		writeError(w, err)
		return
	}
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	results := make([]result, len(scores))
	for i, sc := range scores {
		results[i] = result{Index: i, Score: sc}
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "results": results})
}
