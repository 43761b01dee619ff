package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Environment variables read by OpenAIConfigFromEnv.
const (
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"   // e.g. http://localhost:11434/v1 for Ollama
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"    // may be empty for local servers
	EnvEmbedModel    = "MNEMO_EMBED_MODEL" // e.g. text-embedding-3-small, nomic-embed-text
	EnvEmbedDims     = "MNEMO_EMBED_DIMS"  // optional: requested dimensions
)

// Defaults for OpenAIConfig fields left zero.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultEmbedBatch    = 96
	DefaultEmbedRetries  = 4
	DefaultEmbedBackoff  = 500 * time.Millisecond
	DefaultEmbedTimeout  = 60 * time.Second
)

// OpenAIConfig configures an OpenAIEmbedder. The zero value of each field
// means its default; Model is required.
type OpenAIConfig struct {
	// BaseURL is the API root including /v1; "" means DefaultOpenAIBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (Ollama, vLLM).
	APIKey string
	// Model is the embedding model; required.
	Model string
	// Dims, when positive, is requested from the API (the "dimensions"
	// parameter of text-embedding-3 models) and checked on every vector.
	// 0 means the model's own size, learnt by one probe request in
	// NewOpenAIEmbedder.
	Dims int
	// BatchSize is the most texts per request; 0 means DefaultEmbedBatch.
	BatchSize int
	// Retries is how many times a failed request is retried (429, 5xx,
	// timeouts and network errors; never 4xx other than 429); 0 means
	// DefaultEmbedRetries, negative means none.
	Retries int
	// Backoff is the first retry delay, doubled per retry up to 32×;
	// 0 means DefaultEmbedBackoff.
	Backoff time.Duration
	// HTTPClient sends the requests; nil means an http.Client with
	// DefaultEmbedTimeout.
	HTTPClient *http.Client
}

// OpenAIConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY,
// MNEMO_EMBED_MODEL and MNEMO_EMBED_DIMS through getenv. It returns
// ErrInvalidOptions when MNEMO_EMBED_MODEL is unset: mnemo never picks a
// remote model on its own.
func OpenAIConfigFromEnv(getenv func(string) string) (OpenAIConfig, error) {
	cfg := OpenAIConfig{BaseURL: getenv(EnvOpenAIBaseURL), APIKey: getenv(EnvOpenAIAPIKey), Model: getenv(EnvEmbedModel)}
	if cfg.Model == "" {
		return cfg, fmt.Errorf("%w: %s is not set", ErrInvalidOptions, EnvEmbedModel)
	}
	if d := getenv(EnvEmbedDims); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return cfg, fmt.Errorf("%w: %s=%q is not a positive whole number", ErrInvalidOptions, EnvEmbedDims, d)
		}
		cfg.Dims = n
	}
	return cfg, nil
}

// OpenAIEmbedder embeds through any OpenAI-compatible /embeddings endpoint
// (OpenAI, Ollama, vLLM, LocalAI) with the go-openai client: texts are sent
// in batches, failed requests are retried with exponential backoff, and
// every vector is L2-normalised (some servers do not normalise).
//
// It is safe for concurrent use.
type OpenAIEmbedder struct {
	cfg    OpenAIConfig
	client *openai.Client
	dims   int
	sleep  func(context.Context, time.Duration) error
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// NewOpenAIEmbedder returns an embedder for cfg. When cfg.Dims is 0 it
// sends one probe request to learn the model's dimension, and returns its
// error (wrapping ErrEmbed) when that fails.
func NewOpenAIEmbedder(ctx context.Context, cfg OpenAIConfig) (*OpenAIEmbedder, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: an embedding model is required", ErrInvalidOptions)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultEmbedBatch
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultEmbedRetries
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultEmbedBackoff
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: DefaultEmbedTimeout}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = cfg.HTTPClient
	e := &OpenAIEmbedder{cfg: cfg, client: openai.NewClientWithConfig(oc), dims: cfg.Dims, sleep: sleepCtx}
	if e.dims == 0 {
		vs, err := e.request(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, err
		}
		e.dims = len(vs[0])
	}
	return e, nil
}

// ID returns "openai:<model>", with ":<dims>" when dimensions were
// requested (vectors of different sizes are not comparable).
func (e *OpenAIEmbedder) ID() string {
	if e.cfg.Dims > 0 {
		return fmt.Sprintf("openai:%s:%d", e.cfg.Model, e.cfg.Dims)
	}
	return "openai:" + e.cfg.Model
}

// Dims returns the vector length.
func (e *OpenAIEmbedder) Dims() int { return e.dims }

// Embed returns one L2-normalised vector per text, in order, sending at
// most BatchSize texts per request. Empty texts are sent as a single space
// (the API refuses empty strings). Errors wrap ErrEmbed (after the retries)
// or ErrDimension (a vector of the wrong size).
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		vs, err := e.request(ctx, batch)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if len(v) != e.dims {
				return nil, fmt.Errorf("%w: %s returned %d dims, want %d", ErrDimension, e.ID(), len(v), e.dims)
			}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// request embeds one batch with retries.
func (e *OpenAIEmbedder) request(ctx context.Context, batch []string) ([][]float32, error) {
	in := make([]string, len(batch))
	for i, t := range batch {
		if t == "" {
			t = " "
		}
		in[i] = t
	}
	req := openai.EmbeddingRequestStrings{Input: in, Model: openai.EmbeddingModel(e.cfg.Model), Dimensions: max(e.cfg.Dims, 0)}
	retries := max(e.cfg.Retries, 0)
	var last error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			d := e.cfg.Backoff << min(attempt-1, 5)
			if err := e.sleep(ctx, d); err != nil {
				return nil, fmt.Errorf("%w: %v (after %v)", ErrEmbed, err, last)
			}
		}
		resp, err := e.client.CreateEmbeddings(ctx, req)
		if err == nil {
			return vectors(resp, len(in))
		}
		last = err
		if !retryable(err) || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrEmbed, e.ID(), last)
}

// vectors orders the response by index, checks the count and normalises.
func vectors(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrEmbed, len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: bad or repeated index %d in response", ErrEmbed, d.Index)
		}
		v := append([]float32(nil), d.Embedding...)
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
			return nil, fmt.Errorf("%w: vector %d has no direction", ErrEmbed, d.Index)
		}
		norm := math.Sqrt(sum)
		for i := range v {
			v[i] = float32(float64(v[i]) / norm)
		}
		out[d.Index] = v
	}
	return out, nil
}

// retryable reports whether a request error may pass on retry: rate limits,
// server errors, timeouts and network failures.
func retryable(err error) bool {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode == http.StatusTooManyRequests || api.HTTPStatusCode >= 500
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		return req.HTTPStatusCode == http.StatusTooManyRequests || req.HTTPStatusCode >= 500
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return !errors.Is(err, context.Canceled)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
