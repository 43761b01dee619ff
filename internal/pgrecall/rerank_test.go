package pgrecall_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRerankParity runs the same queries with the re-rank stage through
// the SQLite backend's Index.SearchReranked and the Postgres searcher's
// SearchReranked, against one fake /v1/rerank endpoint (word overlap), and
// wants the same result: the re-ranker's topK with its scores, the ranges
// around them, the same candidates sent (one request each, the same
// documents in the same order) and the same Retrieval.Rerank but its
// latency. When the endpoint fails or the budget runs out, both keep the
// fused order and say so.
func TestRerankParity(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	c := newCorpus(rng, []string{"A", "B"}, 4, 24)
	ix := sqliteIndex(t, c, recall.Tuning{})
	pg := newSearcher(t, postgres(t, c, true), recall.Tuning{})
	srv := openaitest.New(t)
	cfg := srv.Config()
	rr, err := recall.NewOpenAIReranker(recall.OpenAIRerankConfig{BaseURL: cfg.BaseURL, APIKey: openaitest.DefaultAPIKey, Model: "reranker-x", HTTPClient: cfg.HTTPClient.(*http.Client)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		setup   func()
		queries int
		status  string // "" means RerankOK
		budget  time.Duration
	}{
		{"ok", func() { srv.SetRerank(openaitest.WordOverlap) }, 60, "", 0},
		{"endpoint fails", func() {
			srv.SetRerank(func(openaitest.RerankRequest) ([]float64, error) {
				return nil, &openaitest.StatusError{Status: 400, Message: "bad model"}
			})
		}, 10, "unavailable", 0},
		{"over budget", func() { srv.SetRerank(openaitest.WordOverlap); srv.SetRerankDelay(3 * time.Second) }, 4, recall.RerankTimeout, 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			defer srv.SetRerankDelay(0)
			hits, checked := 0, 0
			for i := range tc.queries {
				q := parityQuery(rng, c)
				stage := recall.Rerank{Reranker: rr, Depth: []int{0, 5, 12}[rng.IntN(3)], Budget: tc.budget}
				name := fmt.Sprintf("query %d %q %+v depth %d", i, q.Text, q.Options, stage.Depth)
				sent := len(srv.RerankRequests())
				want, werr := ix.SearchReranked(t.Context(), q, stage)
				mid := srv.RerankRequests()
				got, gerr := pg.SearchReranked(t.Context(), q, stage)
				after := srv.RerankRequests()
				if (werr != nil) != (gerr != nil) {
					t.Fatalf("%s: SQLite error %v, Postgres %v", name, werr, gerr)
				}
				if werr != nil {
					continue
				}
				if len(mid)-sent != len(after)-len(mid) {
					t.Fatalf("%s: SQLite sent %d re-rank requests, Postgres %d", name, len(mid)-sent, len(after)-len(mid))
				}
				if len(mid) > sent && fmt.Sprint(mid[sent:]) != fmt.Sprint(after[len(mid):]) {
					t.Fatalf("%s: re-rank requests differ\n got %v\nwant %v", name, after[len(mid):], mid[sent:])
				}
				ws, gs := want.Retrieval.Rerank, got.Retrieval.Rerank
				if ws == nil || gs == nil || ws.Reranker != gs.Reranker || ws.Status != gs.Status || ws.Candidates != gs.Candidates {
					t.Fatalf("%s: Retrieval.Rerank %+v, want %+v", name, gs, ws)
				}
				if ws.Candidates > 0 { // with none, no request is sent: "ok"
					checked++
					if tc.status == "" && ws.Status != recall.RerankOK || tc.status != "" && !strings.HasPrefix(ws.Status, tc.status) {
						t.Fatalf("%s: status %q, want %q", name, ws.Status, tc.status)
					}
				}
				want.Retrieval.Rerank, got.Retrieval.Rerank = nil, nil
				sameResult(t, name, want, got, 1e-9)
				hits += len(want.Hits)
			}
			t.Logf("%d queries (%d re-ranked), %d hits equal", tc.queries, checked, hits)
			if hits < tc.queries || checked < tc.queries/2 {
				t.Fatalf("only %d hits compared, %d queries re-ranked", hits, checked)
			}
		})
	}
}
