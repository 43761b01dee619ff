package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults of OpenAIModel.
const (
	// DefaultAttempts is how many times a transient failure is tried in all.
	DefaultAttempts = 4
	// DefaultBackoff is the first retry delay; it doubles per attempt, with up
	// to 50% random jitter, capped at MaxBackoff.
	DefaultBackoff = 500 * time.Millisecond
	// MaxBackoff caps one retry delay.
	MaxBackoff = 8 * time.Second
)

// OpenAIModel is a Model over any OpenAI-compatible chat completions endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server) through the go-openai client. It is
// safe for concurrent use and holds no resources beyond its HTTP client.
type OpenAIModel struct {
	client   *openai.Client
	model    string
	attempts int
	backoff  time.Duration
	// jsonMode sends response_format json_object when a request asks for it.
	jsonMode bool
}

var _ Model = (*OpenAIModel)(nil)

// OpenAIConfig configures NewOpenAIModel. The zero value of each field means
// its default.
type OpenAIConfig struct {
	BaseURL string // e.g. "http://localhost:11434/v1"; "" means OpenAI's
	APIKey  string // may be empty for local servers
	Model   string // required
	// Attempts is how many times a transient failure (HTTP 408, 409, 429,
	// 5xx, transport errors) is tried in all; 0 means DefaultAttempts, 1
	// disables retries.
	Attempts int
	// Backoff is the first retry delay; 0 means DefaultBackoff.
	Backoff time.Duration
	// NoJSONMode stops sending response_format for endpoints that reject it.
	NoJSONMode bool
	// HTTPClient is used for requests; nil means http.DefaultClient. Timeouts
	// come from the caller's context, so it needs no Timeout of its own.
	// Its transport is wrapped (on a copy) to bound and check the answers.
	HTTPClient *http.Client
	// MaxResponseBytes bounds one answer's HTTP body, in bytes; 0 means
	// DefaultMaxResponseBytes. A larger body fails the call at once with a
	// *ResponseTooLargeError, having read no more than that.
	MaxResponseBytes int64
}

// NewOpenAIModel returns a model over the endpoint in c. It returns ErrConfig
// when c.Model is empty. It does not contact the endpoint.
func NewOpenAIModel(c OpenAIConfig) (*OpenAIModel, error) {
	if c.Model == "" {
		return nil, fmt.Errorf("%w: model name is empty (set MNEMO_MODEL)", ErrConfig)
	}
	cfg := openai.DefaultConfig(c.APIKey)
	if c.BaseURL != "" {
		cfg.BaseURL = c.BaseURL
	}
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	cfg.HTTPClient = boundedClient(c.HTTPClient, limit) // model_http.go
	m := &OpenAIModel{
		client:   openai.NewClientWithConfig(cfg),
		model:    c.Model,
		attempts: c.Attempts,
		backoff:  c.Backoff,
		jsonMode: !c.NoJSONMode,
	}
	if m.attempts <= 0 {
		m.attempts = DefaultAttempts
	}
	if m.backoff <= 0 {
		m.backoff = DefaultBackoff
	}
	return m, nil
}

// OpenAIConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and MNEMO_MODEL.
func OpenAIConfigFromEnv() OpenAIConfig {
	return OpenAIConfig{
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		Model:   os.Getenv("MNEMO_MODEL"),
	}
}

// ID returns the model name.
func (m *OpenAIModel) ID() string { return m.model }

// Complete implements Model. Transient failures are retried with exponential
// backoff and jitter while ctx allows; the last error is returned wrapping
// ErrModel. An HTTP 4xx status that is not retried wraps, besides,
// ErrModelRefused (401, 402, 404, a 403 not of the content),
// ErrContentRefused (a content filter or moderation refused the prompt),
// ErrInputTooLong (the prompt over the model's context) or
// ErrRequestRejected (any other): refusal. An answer body over OpenAIConfig.MaxResponseBytes
// (ErrResponseTooLarge) or a successful answer that is not JSON (ErrNotJSON)
// fails at once. Context cancellation and deadline errors are returned wrapping
// both ErrModel and the context error.
func (m *OpenAIModel) Complete(ctx context.Context, req Prompt) (string, error) {
	creq := openai.ChatCompletionRequest{
		Model: m.model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: req.System},
			{Role: openai.ChatMessageRoleUser, Content: req.User},
		},
		Temperature: 0,
		MaxTokens:   req.MaxTokens,
	}
	if req.JSON && m.jsonMode {
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	delay := m.backoff
	var last error
	for attempt := 1; ; attempt++ {
		resp, err := m.client.CreateChatCompletion(ctx, creq)
		if err == nil {
			return answerText(resp, req.MaxTokens)
		}
		last = err
		if ctx.Err() != nil {
			return "", m.cutShort(ctx, err)
		}
		if attempt >= m.attempts || !transient(err) {
			if kind := refusal(last); kind != nil {
				return "", fmt.Errorf("%w (%w): %s after %d attempt(s): %w", ErrModel, kind, m.model, attempt, last)
			}
			return "", fmt.Errorf("%w: %s after %d attempt(s): %w", ErrModel, m.model, attempt, last)
		}
		wait := delay + time.Duration(rand.Int64N(int64(delay)/2+1))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", m.cutShort(ctx, last)
		case <-t.C:
		}
		delay = min(delay*2, MaxBackoff)
	}
}

// answerText is the text of a chat completion's first choice, or the
// error that says why there is none: no choice or a content filter
// (ErrEmptyAnswer), tool calls instead of text, or text cut at max_tokens
// (finish reason "length") that is not whole JSON (ErrMalformedAnswer).
// Each said only "empty answer" or "unexpected EOF" before, and the
// range is tried again at the next observation, so the error is the one
// place that tells an operator what to change.
func answerText(resp openai.ChatCompletionResponse, maxTokens int) (string, error) {
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%w: the endpoint's answer holds no choice", ErrEmptyAnswer)
	}
	c := resp.Choices[0]
	switch {
	case c.Message.Content == "" && len(c.Message.ToolCalls) > 0:
		return "", fmt.Errorf("%w: the model answered with %d tool call(s) (the first: %q) instead of the JSON text asked for; the observer offers no tools, so the endpoint or its chat template added them: use a model or endpoint that answers in text",
			ErrMalformedAnswer, len(c.Message.ToolCalls), c.Message.ToolCalls[0].Function.Name)
	case c.FinishReason == openai.FinishReasonContentFilter && c.Message.Content == "":
		return "", fmt.Errorf("%w: the endpoint's content filter withheld the answer (finish_reason content_filter)", ErrEmptyAnswer)
	case c.FinishReason == openai.FinishReasonLength && !json.Valid([]byte(unfence(c.Message.Content))):
		return "", fmt.Errorf("%w: the answer was cut at max_tokens (%d tokens asked: observe.maxAnswerTokens in mnemo.json, Config.MaxAnswerTokens in Go) before its JSON ended (finish_reason length): raise observe.maxAnswerTokens, or lower the chunk (observe.chunkTokens) so that it needs a shorter answer",
			ErrMalformedAnswer, maxTokens)
	}
	return c.Message.Content, nil
}

// cutShort is Complete's error when ctx ended: it wraps ErrModel, the
// context's error and the last attempt's, on one line (errors.Join wrote
// them on two, which split the line of a log or of the CLI's message).
func (m *OpenAIModel) cutShort(ctx context.Context, last error) error {
	return fmt.Errorf("%w: %s: %w (the last attempt: %w)", ErrModel, m.model, ctx.Err(), last)
}

// transient reports whether err is worth retrying: rate limits, server
// errors, timeouts on the server side, and transport failures.
func transient(err error) bool {
	if errors.Is(err, ErrResponseTooLarge) || errors.Is(err, ErrNotJSON) {
		return false // the endpoint answers so again
	}
	var api *openai.APIError
	if errors.As(err, &api) {
		return retryStatus(api.HTTPStatusCode)
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode == 0 || retryStatus(re.HTTPStatusCode)
	}
	// Transport errors (connection refused, reset, EOF) carry no status.
	return true
}

func retryStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}
