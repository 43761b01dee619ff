package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// SearchResult is the answer of SearchMessages: hits with their stored
// messages, in rank order.
type SearchResult struct {
	// Hits are in rank order, each hit followed by its range neighbours
	// (recall.SortByRank). A hit whose message was erased after it was
	// indexed is left out.
	Hits []SearchHit `json:"hits"`
	// Retrieval says how each channel fared and names the embedder.
	Retrieval journal.Retrieval `json:"retrieval"`
}

// SearchHit is one recall hit or range neighbour with the message it names.
type SearchHit struct {
	// Message is the stored message (its Content is a bounded summary when
	// Message.Truncated; FullContent gives the whole text).
	Message Message `json:"message"`
	// Reason is recall.ReasonHit for a ranked hit, recall.ReasonRange for a
	// neighbour brought by a hit.
	Reason string `json:"reason"`
	// Rank is the 1-based rank of the hit; for a neighbour, the rank of the
	// hit that brought it.
	Rank int `json:"rank"`
	// Score is the fused score of a hit (nil for a neighbour); Lexical and
	// Vector are the channel scores when the channel found the message.
	Score *float64 `json:"score,omitempty"`
	// Lexical is the BM25 channel's score, nil when that channel did not find the message.
	Lexical *float64 `json:"lexicalScore,omitempty"`
	// Vector is the vector channel's cosine similarity in [-1, 1], nil when it did not find the message.
	Vector *float64 `json:"vectorScore,omitempty"`
}

// SearchMessages is Search with each hit's stored message (text, role,
// thread, seq, metadata), in rank order: the call behind the HTTP API's
// /v1/search and the MCP memory_search tool. It reads the messages of
// req.ResourceID only, so a search never returns another resource's text.
// Errors are Search's, and an *AnswerTooLargeError (ErrAnswerTooLarge)
// when the hits and their neighbours pass Config.Limits.MaxAnswerBytes.
func (e *Engine) SearchMessages(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	res, hits, ids, err := e.rankedSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	// The rows are read within Limits.MaxAnswerBytes, counted as they
	// arrive: 600 messages of 200 KB in one resource made one request of
	// topK 1000 read and answer 120 MB.
	msgs, err := messagesFromRows(e.ms.MessagesByIDWithin(ctx, req.ResourceID, ids, e.limits.MaxAnswerBytes))
	if errors.Is(err, msgstore.ErrTooLarge) {
		return nil, &AnswerTooLargeError{Limit: e.limits.MaxAnswerBytes, Fields: []string{"recall.topK", "recall.messageRange"}}
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	byID := make(map[string]Message, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	out := &SearchResult{Hits: make([]SearchHit, 0, len(hits)), Retrieval: journalRetrieval(res.Retrieval)}
	for _, h := range hits {
		m, ok := byID[h.MessageID]
		if !ok {
			continue // erased since it was indexed
		}
		sh := SearchHit{Message: m, Reason: h.Reason, Rank: h.Rank, Lexical: h.Lexical, Vector: h.Vector}
		if h.Reason == recall.ReasonHit {
			s := h.Score
			sh.Score = &s
		}
		out.Hits = append(out.Hits, sh)
	}
	return out, nil
}

// rankedSearch is Search with its hits in rank order, each hit followed by
// its range neighbours (recall.SortByRank, on a copy), and their message
// ids in that order.
func (e *Engine) rankedSearch(ctx context.Context, req SearchRequest) (*recall.Result, []recall.Hit, []string, error) {
	res, err := e.Search(ctx, req)
	if err != nil {
		return nil, nil, nil, err
	}
	hits := append([]recall.Hit(nil), res.Hits...)
	recall.SortByRank(hits)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.MessageID
	}
	return res, hits, ids, nil
}
