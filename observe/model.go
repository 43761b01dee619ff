package observe

import "context"

// Model is a chat model the observer and reflector call.
//
// Implementations are safe for concurrent use.
type Model interface {
	// ID names the model, e.g. "gpt-4o-mini". It is part of every memo key, so
	// two models whose answers differ must not share an ID.
	ID() string
	// Complete sends one system and one user message and returns the text of
	// the first choice. It honours ctx's deadline and cancellation, retries
	// transient failures itself, and returns an error wrapping ErrModel when
	// the call failed. An empty answer is returned as "" with no error; the
	// caller decides what that means.
	Complete(ctx context.Context, req Prompt) (string, error)
}

// Prompt is one model call.
type Prompt struct {
	System string // the instructions
	User   string // the data, delimited
	// JSON asks for a JSON object answer (response_format json_object) where
	// the endpoint supports it.
	JSON bool
	// MaxTokens bounds the answer; 0 means the endpoint's default.
	MaxTokens int
}
