package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Environment variables read by RerankFromEnv.
const (
	EnvRerankModel    = "MNEMO_RERANK_MODEL"    // e.g. bge-reranker-v2-m3, gpt-4o-mini; unset: no re-rank stage
	EnvRerankEndpoint = "MNEMO_RERANK_ENDPOINT" // rerank (default) or chat
	EnvRerankBaseURL  = "MNEMO_RERANK_BASE_URL" // "" means OPENAI_BASE_URL
	EnvRerankBudget   = "MNEMO_RERANK_BUDGET"   // e.g. 800ms; "" means DefaultRerankBudget
	EnvRerankDepth    = "MNEMO_RERANK_DEPTH"    // candidates sent; "" means DefaultRerankDepth
)

// Re-rank endpoints (OpenAIRerankConfig.Endpoint).
const (
	// EndpointRerank is POST {BaseURL}/rerank with {model, query,
	// documents}, answered {results: [{index, relevance_score}]}: the
	// cross-encoder API of Cohere, Jina, vLLM, llama.cpp's server and
	// LocalAI.
	EndpointRerank = "rerank"
	// EndpointChat asks a chat model (POST {BaseURL}/chat/completions) to
	// order the numbered passages, answered as JSON {"ranking": [numbers,
	// most relevant first]}; a passage it leaves out ranks below every
	// passage it lists.
	EndpointChat = "chat"
)

// rerankPassageChars bounds each passage sent to the chat endpoint, so a
// long turn cannot crowd the others out of the model's context.
const rerankPassageChars = 2000

// OpenAIRerankConfig configures an OpenAIReranker. Model is required.
type OpenAIRerankConfig struct {
	// BaseURL is the API root including /v1; "" means DefaultOpenAIBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Model is the re-rank or chat model; required.
	Model string
	// Endpoint is EndpointRerank or EndpointChat; "" means EndpointRerank.
	Endpoint string
	// HTTPClient sends the requests; nil means http.DefaultClient (the
	// caller's context, the stage's budget, bounds each call).
	HTTPClient *http.Client
}

// RerankFromEnv returns the re-rank stage the environment asks for, read
// through getenv: an OpenAIReranker of MNEMO_RERANK_MODEL at
// MNEMO_RERANK_ENDPOINT (rerank or chat) of MNEMO_RERANK_BASE_URL (else
// OPENAI_BASE_URL) with OPENAI_API_KEY, a budget of MNEMO_RERANK_BUDGET (a
// Go duration such as "800ms") and a depth of MNEMO_RERANK_DEPTH. It
// returns nil, no stage, when MNEMO_RERANK_MODEL is unset, and
// ErrInvalidOptions naming the variable for a value it cannot use.
func RerankFromEnv(getenv func(string) string) (*Rerank, error) {
	cfg := OpenAIRerankConfig{BaseURL: getenv(EnvRerankBaseURL), APIKey: getenv(EnvOpenAIAPIKey), Model: getenv(EnvRerankModel), Endpoint: getenv(EnvRerankEndpoint)}
	if cfg.Model == "" {
		return nil, nil
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = getenv(EnvOpenAIBaseURL)
	}
	var st Rerank
	if v := getenv(EnvRerankBudget); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%w: %s=%q is not a positive duration such as 800ms", ErrInvalidOptions, EnvRerankBudget, v)
		}
		st.Budget = d
	}
	if v := getenv(EnvRerankDepth); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > MaxTopK {
			return nil, fmt.Errorf("%w: %s=%q is not a whole number within [1, %d]", ErrInvalidOptions, EnvRerankDepth, v, MaxTopK)
		}
		st.Depth = n
	}
	rr, err := NewOpenAIReranker(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvRerankEndpoint, err)
	}
	st.Reranker = rr
	return &st, nil
}

// OpenAIReranker re-ranks through an OpenAI-compatible endpoint: a
// cross-encoder's /rerank or a chat model (OpenAIRerankConfig.Endpoint).
// It makes one request per call and never retries: the re-rank stage has
// a latency budget, and the fused order is its fallback.
//
// It is safe for concurrent use.
type OpenAIReranker struct {
	cfg  OpenAIRerankConfig
	chat *openai.Client
}

var _ Reranker = (*OpenAIReranker)(nil)

// NewOpenAIReranker returns a re-ranker for cfg; ErrInvalidOptions when the
// model is missing or the endpoint unknown. It sends nothing.
func NewOpenAIReranker(cfg OpenAIRerankConfig) (*OpenAIReranker, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: a re-rank model is required", ErrInvalidOptions)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	switch cfg.Endpoint {
	case "":
		cfg.Endpoint = EndpointRerank
	case EndpointRerank, EndpointChat:
	default:
		return nil, fmt.Errorf("%w: re-rank endpoint must be %s or %s, got %q", ErrInvalidOptions, EndpointRerank, EndpointChat, cfg.Endpoint)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = cfg.HTTPClient
	return &OpenAIReranker{cfg: cfg, chat: openai.NewClientWithConfig(oc)}, nil
}

// ID returns "<endpoint>:<model>", e.g. "rerank:bge-reranker-v2-m3".
func (r *OpenAIReranker) ID() string { return r.cfg.Endpoint + ":" + r.cfg.Model }

// Rerank implements Reranker.
func (r *OpenAIReranker) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	if len(passages) == 0 {
		return nil, nil
	}
	if r.cfg.Endpoint == EndpointChat {
		return r.rerankChat(ctx, query, passages)
	}
	return r.rerankEndpoint(ctx, query, passages)
}

// rerankRequest and rerankResponse are the /rerank wire format.
type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
}

type rerankResponse struct {
	Results []struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	} `json:"results"`
}

// rerankEndpoint calls POST {BaseURL}/rerank.
func (r *OpenAIReranker) rerankEndpoint(ctx context.Context, query string, passages []string) ([]float64, error) {
	body, err := json.Marshal(rerankRequest{Model: r.cfg.Model, Query: query, Documents: passages})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRerank, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(r.cfg.BaseURL, "/")+"/rerank", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRerank, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRerank, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRerank, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: status %d: %s", ErrRerank, resp.StatusCode, bytes.TrimSpace(raw[:min(len(raw), 200)]))
	}
	var rr rerankResponse
	if err := json.Unmarshal(raw, &rr); err != nil {
		return nil, fmt.Errorf("%w: answer is not {results: [{index, relevance_score}]}: %v", ErrRerank, err)
	}
	scores := make([]float64, len(passages))
	seen := make([]bool, len(passages))
	for _, x := range rr.Results {
		if x.Index < 0 || x.Index >= len(passages) || seen[x.Index] {
			return nil, fmt.Errorf("%w: answer has index %d for %d documents", ErrRerank, x.Index, len(passages))
		}
		seen[x.Index], scores[x.Index] = true, x.Score
	}
	if len(rr.Results) != len(passages) {
		return nil, fmt.Errorf("%w: %d scores for %d documents", ErrRerank, len(rr.Results), len(passages))
	}
	return scores, nil
}

// rerankPrompt is the chat endpoint's instruction.
const rerankPrompt = `You rank passages of a conversation by how useful each is to answer a question about it. ` +
	`Reply with JSON only: {"ranking": [passage numbers, most useful first]}. List every passage that could help; leave out the others.`

// rankingJSON finds the JSON object of a chat answer (models may wrap it in
// prose or a code fence).
var rankingJSON = regexp.MustCompile(`(?s)\{.*\}`)

// rerankChat asks a chat model to order the passages.
func (r *OpenAIReranker) rerankChat(ctx context.Context, query string, passages []string) ([]float64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nPassages:\n", query)
	for i, p := range passages {
		if len(p) > rerankPassageChars {
			p = p[:rerankPassageChars] + "…"
		}
		fmt.Fprintf(&b, "[%d] %s\n", i+1, strings.ReplaceAll(p, "\n", " "))
	}
	resp, err := r.chat.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model:       r.cfg.Model,
		Temperature: 0,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: rerankPrompt},
			{Role: openai.ChatMessageRoleUser, Content: b.String()},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrRerank, err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("%w: chat answer has no choices", ErrRerank)
	}
	return parseRanking(resp.Choices[0].Message.Content, len(passages))
}

// parseRanking turns a chat answer {"ranking": [numbers]} over n passages
// into scores: the passage listed first scores n, the next n−1, …; an
// unlisted passage 0. Numbers out of range or repeated fail.
func parseRanking(answer string, n int) ([]float64, error) {
	var out struct {
		Ranking []json.Number `json:"ranking"`
	}
	m := rankingJSON.FindString(answer)
	if m == "" || json.Unmarshal([]byte(m), &out) != nil || len(out.Ranking) == 0 {
		return nil, fmt.Errorf("%w: chat answer is not {\"ranking\": [passage numbers]}: %.200q", ErrRerank, answer)
	}
	scores := make([]float64, n)
	for pos, num := range out.Ranking {
		k, err := strconv.Atoi(num.String())
		if err != nil || k < 1 || k > n || scores[k-1] != 0 {
			return nil, fmt.Errorf("%w: chat ranking lists %s (passages 1..%d, each once)", ErrRerank, num, n)
		}
		scores[k-1] = float64(n - pos)
	}
	return scores, nil
}
