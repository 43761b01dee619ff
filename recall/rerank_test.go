package recall_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// rerankDocs: six turns of one resource that all match "pottery"; the one
// that answers the question ("Luna") is not the best lexical match.
func rerankDocs() []recall.Doc {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id, thread string, seq int64, content string) recall.Doc {
		return recall.Doc{ID: id, ThreadID: thread, ResourceID: "r", Seq: seq, Role: "user", Content: content, CreatedAt: at}
	}
	return []recall.Doc{
		doc("a1", "a", 1, "Pottery, pottery, pottery: the pottery class is my favourite pottery time."),
		doc("a2", "a", 2, "The pottery teacher is strict about pottery glazes."),
		doc("a3", "a", 3, "After a long day of glazing, firing and sweeping the studio floor with everyone, I named the pottery cat Luna."),
		doc("a4", "a", 4, "She sleeps on the kiln."),
		doc("b1", "b", 1, "We bought pottery tools."),
		doc("b2", "b", 2, "Pottery clay is expensive."),
	}
}

func rerankerFor(t *testing.T, srv *openaitest.Server, endpoint string) recall.Reranker {
	t.Helper()
	c := srv.Config()
	rr, err := recall.NewOpenAIReranker(recall.OpenAIRerankConfig{BaseURL: c.BaseURL, APIKey: openaitest.DefaultAPIKey, Model: "reranker-x", Endpoint: endpoint, HTTPClient: c.HTTPClient.(*http.Client)})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

func hitIDs(res *recall.Result) []string {
	recall.SortByRank(res.Hits)
	var ids []string
	for _, h := range res.Hits {
		if h.Reason == recall.ReasonHit {
			ids = append(ids, h.MessageID)
		}
	}
	return ids
}

// TestSearchReranked: the re-ranker's order decides the topK among the
// fused order's best Depth candidates (a cross-encoder's /rerank and a chat
// model's ranking), the hits are then expanded by the message range, and
// Retrieval.Rerank says it ran; a slow or failing endpoint leaves the fused
// order, within the budget.
func TestSearchReranked(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rerankDocs())
	q := recall.Query{Text: "pottery pet", ResourceID: "r", Options: recall.Options{TopK: 2}}
	plain, err := f.ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	fused := hitIDs(plain)
	if len(fused) != 2 || fused[0] == "a3" {
		t.Fatalf("fused top 2 %v: the fixture wants a3 below the first", fused)
	}
	luna := func(req openaitest.RerankRequest) ([]float64, error) {
		out := make([]float64, len(req.Documents))
		for i, d := range req.Documents {
			if strings.Contains(d, "Luna") {
				out[i] = 0.9
			}
		}
		return out, nil
	}

	t.Run("rerank endpoint", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.WithRerank(luna))
		rq := q
		rq.Options.MessageRange = recall.Range{After: 1}
		res, err := f.ix.SearchReranked(ctx, rq, recall.Rerank{Reranker: rerankerFor(t, srv, recall.EndpointRerank), Depth: 6})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitIDs(res); len(got) != 2 || got[0] != "a3" || got[1] != fused[0] {
			t.Errorf("re-ranked hits %v, want [a3 %s] (Luna first, then the fused order)", got, fused[0])
		}
		if !slices.ContainsFunc(res.Hits, func(h recall.Hit) bool { return h.MessageID == "a4" && h.Reason == recall.ReasonRange }) {
			t.Errorf("hits %+v: want a4, a3's range neighbour", res.Hits)
		}
		st := res.Retrieval.Rerank
		if st == nil || st.Status != recall.RerankOK || st.Reranker != "rerank:reranker-x" || st.Candidates != 6 || st.Millis <= 0 {
			t.Errorf("Retrieval.Rerank %+v, want ok, rerank:reranker-x, 6 candidates, a latency", st)
		}
		reqs := srv.RerankRequests()
		if len(reqs) != 1 || reqs[0].Query != rq.Text || len(reqs[0].Documents) != 6 {
			t.Errorf("re-rank requests %+v, want one with the query and 6 documents", reqs)
		}
	})

	t.Run("chat endpoint", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.SetChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			// The passages are numbered in fused order; pick Luna's.
			user := req.Messages[len(req.Messages)-1].Content
			for _, line := range strings.Split(user, "\n") {
				if strings.Contains(line, "Luna") {
					num := strings.TrimPrefix(strings.SplitN(line, "]", 2)[0], "[")
					return chatText(`{"ranking": [` + num + `]}`), nil
				}
			}
			return chatText(`{"ranking": []}`), nil
		})
		res, err := f.ix.SearchReranked(ctx, q, recall.Rerank{Reranker: rerankerFor(t, srv, recall.EndpointChat)})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitIDs(res); len(got) != 2 || got[0] != "a3" || got[1] != fused[0] {
			t.Errorf("chat re-ranked hits %v, want [a3 %s]", got, fused[0])
		}
		if st := res.Retrieval.Rerank; st == nil || st.Status != recall.RerankOK || st.Reranker != "chat:reranker-x" {
			t.Errorf("Retrieval.Rerank %+v, want ok from chat:reranker-x", st)
		}
	})

	// Each case's budget: 100 ms runs out while the reranker sleeps; the
	// failing endpoint answers at once, but a budget that short turned a
	// round trip slower than 100 ms on a loaded machine into a timeout.
	fallbacks := []struct {
		name   string
		budget time.Duration
		setup  func(*openaitest.Server)
		status func(string) bool
	}{
		{"over budget", 100 * time.Millisecond, func(s *openaitest.Server) { s.SetRerankDelay(5 * time.Second) }, func(st string) bool { return st == recall.RerankTimeout }},
		{"endpoint fails", 10 * time.Second, func(s *openaitest.Server) {
			s.SetRerank(func(openaitest.RerankRequest) ([]float64, error) {
				return nil, &openaitest.StatusError{Status: 503, Message: "overloaded"}
			})
		}, func(st string) bool {
			return strings.HasPrefix(st, "unavailable: ") && strings.HasSuffix(st, "fused order kept")
		}},
	}
	for _, tc := range fallbacks {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithRerank(luna))
			tc.setup(srv)
			start := time.Now()
			res, err := f.ix.SearchReranked(ctx, q, recall.Rerank{Reranker: rerankerFor(t, srv, recall.EndpointRerank), Budget: tc.budget})
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > tc.budget+3*time.Second {
				t.Errorf("took %v with a budget of %v", took, tc.budget)
			}
			if got := hitIDs(res); !slices.Equal(got, fused) {
				t.Errorf("hits %v, want the fused order %v", got, fused)
			}
			if st := res.Retrieval.Rerank; st == nil || !tc.status(st.Status) {
				t.Errorf("Retrieval.Rerank %+v", st)
			}
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.WithRerank(luna))
		srv.SetRerankDelay(5 * time.Second)
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := f.ix.SearchReranked(cctx, q, recall.Rerank{Reranker: rerankerFor(t, srv, recall.EndpointRerank), Budget: -1})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want the caller's context.DeadlineExceeded", err)
		}
	})
}

// TestOpenAIRerankerAnswers: answers that are not one score per passage
// are ErrRerank, never a partial order.
func TestOpenAIRerankerAnswers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		answer string
		ok     bool
	}{
		{"ranking", `Sure: {"ranking": [2, 1]}`, true},
		{"fenced", "```json\n{\"ranking\": [3]}\n```", true},
		{"out of range", `{"ranking": [4]}`, false},
		{"repeated", `{"ranking": [1, 1]}`, false},
		{"prose", `Passage 2 is best.`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(openaitest.Text(tc.answer))
			scores, err := rerankerFor(t, srv, recall.EndpointChat).Rerank(ctx, "q", []string{"one", "two", "three"})
			if tc.ok != (err == nil) {
				t.Fatalf("scores %v, err %v; want ok=%v", scores, err, tc.ok)
			}
			if err != nil && !errors.Is(err, recall.ErrRerank) {
				t.Errorf("err %v, want ErrRerank", err)
			}
			if err == nil && len(scores) != 3 {
				t.Errorf("%d scores for 3 passages", len(scores))
			}
		})
	}
	if _, err := recall.NewOpenAIReranker(recall.OpenAIRerankConfig{Model: "m", Endpoint: "grpc"}); !errors.Is(err, recall.ErrInvalidOptions) {
		t.Errorf("unknown endpoint: %v, want ErrInvalidOptions", err)
	}
}

// chatText is a chat answer saying content.
func chatText(content string) openai.ChatCompletionResponse {
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Content: content}}}}
}

// TestRerankFromEnv: no model, no stage; the variables set the model,
// endpoint, budget and depth; a value it cannot use is ErrInvalidOptions
// naming the variable.
func TestRerankFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	if st, err := recall.RerankFromEnv(env(nil)); st != nil || err != nil {
		t.Fatalf("nothing set: %+v, %v; want no stage", st, err)
	}
	st, err := recall.RerankFromEnv(env(map[string]string{recall.EnvRerankModel: "gpt-4o-mini", recall.EnvRerankEndpoint: "chat", recall.EnvRerankBudget: "800ms", recall.EnvRerankDepth: "30"}))
	if err != nil || st.Reranker.ID() != "chat:gpt-4o-mini" || st.Budget != 800*time.Millisecond || st.Depth != 30 {
		t.Fatalf("got %+v, %v; want chat:gpt-4o-mini, 800ms, depth 30", st, err)
	}
	for name, kv := range map[string]map[string]string{
		recall.EnvRerankBudget:   {recall.EnvRerankModel: "m", recall.EnvRerankBudget: "soon"},
		recall.EnvRerankDepth:    {recall.EnvRerankModel: "m", recall.EnvRerankDepth: "0"},
		recall.EnvRerankEndpoint: {recall.EnvRerankModel: "m", recall.EnvRerankEndpoint: "grpc"},
	} {
		if _, err := recall.RerankFromEnv(env(kv)); !errors.Is(err, recall.ErrInvalidOptions) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want ErrInvalidOptions naming it", name, err)
		}
	}
}
