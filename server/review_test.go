package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestSearchLoneHitScore: the README's first search (one message in the
// resource) answered "score": 0 for a hit that both channels found, since
// z-score fusion of one candidate is 0. A lone hit now scores its
// channels' presence.
func TestSearchLoneHitScore(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-cat", "res-alice", aliceToken, "my cat Miso loves sardines")
	var res engine.SearchResult
	h.ok("POST", "/v1/search", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": "what does the cat eat, sardines?"}, 200).decode(t, &res)
	if len(res.Hits) != 1 {
		t.Fatalf("hits %+v, want the one message", res.Hits)
	}
	hit := res.Hits[0]
	if hit.Lexical == nil || hit.Vector == nil || hit.Score == nil || *hit.Score <= 0 {
		t.Fatalf("lone hit found by both channels: score %v (lexical %v, vector %v), want > 0", hit.Score, hit.Lexical, hit.Vector)
	}
}
