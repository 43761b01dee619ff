package openaitest

import (
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/fakeopenai"
)

// Paths the server answers, relative to its host.
const (
	PathChat       = fakeopenai.PathChat       // "/v1/chat/completions"
	PathEmbeddings = fakeopenai.PathEmbeddings // "/v1/embeddings"
	// PathRerank is the cross-encoder re-rank path that
	// recall.NewOpenAIReranker's "rerank" endpoint posts to: {model, query,
	// documents} answered {results: [{index, relevance_score}]}.
	PathRerank = fakeopenai.PathRerank // "/v1/rerank"
)

// DefaultAPIKey is the bearer token Server.Client sends and the server
// expects unless WithAPIKey changes it.
const DefaultAPIKey = fakeopenai.DefaultAPIKey

// DefaultDims is the dimension of the default embed function's vectors.
const DefaultDims = fakeopenai.DefaultDims

// The types below are aliases of internal/fakeopenai's, so `go doc` of this
// package shows neither their fields nor their methods; each comment lists
// them, and `go doc github.com/mnemo-go/mnemo/internal/fakeopenai Server`
// (or Reply, Request, …) prints their own documentation.
type (
	// Server is a running fake OpenAI endpoint, safe for concurrent use.
	// Its one field, URL string, is the base URL to give go-openai
	// (openai.ClientConfig.BaseURL): the loopback address followed by
	// "/v1". Its methods:
	//
	//   - Client() *openai.Client and Config() openai.ClientConfig: a
	//     go-openai client, or its configuration, for this server (URL,
	//     the API key, the loopback HTTP client).
	//   - Close(): shuts it down, waiting for requests in flight;
	//     idempotent.
	//   - Enqueue(replies ...Reply): canned chat replies, each chat request
	//     consuming the oldest; Pending() int counts those left.
	//   - SetChat(ChatFunc), SetEmbed(EmbedFunc), SetRerank(RerankFunc):
	//     the responder used when no reply is queued, the embed function
	//     and the re-rank function; nil makes every such request a
	//     violation (for chat: one with no reply queued).
	//   - SetEmbedDelay(time.Duration), SetRerankDelay(time.Duration):
	//     every such request waits that long before answering, or until
	//     the client gives up; 0 removes the delay.
	//   - Requests() []Request: every request received, in arrival order;
	//     ChatRequests() []openai.ChatCompletionRequest,
	//     EmbedRequests() []EmbedRequest and RerankRequests()
	//     []RerankRequest: the well-formed ones of each kind, decoded;
	//     LastChat() (openai.ChatCompletionRequest, bool): the newest chat
	//     request; Count(path string) int: the requests for path, valid or
	//     not.
	//   - Violations() []string: the protocol violations seen, each a
	//     sentence naming the request number and the rule.
	Server = fakeopenai.Server
	// Option configures New and Start.
	Option = fakeopenai.Option
	// Reply is one scripted answer to a chat request (Server.Enqueue). The
	// zero Reply answers 200 with an empty assistant message. Its fields:
	//
	//   - Response openai.ChatCompletionResponse: the body sent when Err
	//     and Raw are unset; missing fields (id, object, created, model,
	//     roles, tool call ids and types, finish reasons, usage) are
	//     filled in.
	//   - Err error: answer with an error body instead, the status of a
	//     *StatusError, else 500.
	//   - Raw []byte, Status int, ContentType string: when Raw is non-nil
	//     (even empty), it is sent verbatim with Status (0 means 200) and
	//     ContentType ("" means application/json).
	//   - Delay time.Duration: wait this long before answering, or until
	//     the client gives up; 0 answers at once.
	//   - Check func(openai.ChatCompletionRequest) error: called with the
	//     request before answering; an error is recorded as a violation
	//     and answered 400.
	//
	// Its methods WithCheck(check) and WithDelay(d) return a copy with
	// Check or Delay set.
	Reply = fakeopenai.Reply
	// ChatFunc answers one chat completion request; missing response fields
	// are filled in as the real API would.
	ChatFunc = fakeopenai.ChatFunc
	// EmbedFunc returns one vector per input, in input order.
	EmbedFunc = fakeopenai.EmbedFunc
	// EmbedRequest is an embeddings request with its input normalised to a
	// list of strings. Its fields: Model string, Input []string,
	// Dimensions int (0 when not sent), EncodingFormat string ("",
	// "float" or "base64"), User string.
	EmbedRequest = fakeopenai.EmbedRequest
	// RerankFunc scores a re-rank request's documents against its query:
	// one score per document, in order (higher is more relevant). Errors
	// answer as a ChatFunc's do.
	RerankFunc = fakeopenai.RerankFunc
	// RerankRequest is the body of a re-rank request. Its fields: Model,
	// Query string, Documents []string.
	RerankRequest = fakeopenai.RerankRequest
	// Request is one recorded HTTP request, in arrival order. Its fields:
	// Method, Path string, Header http.Header, Body []byte (as received),
	// Status int (the status answered), Time time.Time (the server's
	// clock, WithClock).
	Request = fakeopenai.Request
	// StatusError, returned by a ChatFunc, EmbedFunc or RerankFunc,
	// answers with an OpenAI-style error body
	// {"error":{"message":…,"type":…,"code":…}}. Its fields: Status int
	// (the HTTP status, e.g. 429), Message string, Type string (""
	// means derived from Status), Code string (optional).
	StatusError = fakeopenai.StatusError
	// RawResponse, returned by a ChatFunc, EmbedFunc or RerankFunc, sends
	// its Body []byte verbatim with its Status int (0 means 200).
	RawResponse = fakeopenai.RawResponse
)

// Start starts a server outside a test (for example an example program's
// offline mode). The caller must Close it; nothing fails on its own.
func Start(opts ...Option) *Server { return fakeopenai.Start(opts...) }

// New starts a server for a test and registers its shutdown with
// tb.Cleanup; at cleanup every recorded violation fails the test unless
// Lenient was given. There is no default chat responder: chat requests need
// Server.Enqueue, WithChat or Server.SetChat.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	return fakeopenai.New(tb, opts...)
}

// WithAPIKey sets the bearer token the server requires and Client sends; an
// empty key disables the Authorization check.
func WithAPIKey(key string) Option { return fakeopenai.WithAPIKey(key) }

// Lenient keeps a New server from failing its test on protocol
// violations (Server.Violations still lists them).
func Lenient() Option { return fakeopenai.Lenient() }

// WithChat sets the chat responder, used when no scripted reply is queued.
func WithChat(fn ChatFunc) Option { return fakeopenai.WithChat(fn) }

// WithClock sets the clock for recorded times and the "created" field;
// nil means time.Now.
func WithClock(now func() time.Time) Option { return fakeopenai.WithClock(now) }

// WithEmbed sets the embed function (default HashEmbed(DefaultDims)).
func WithEmbed(fn EmbedFunc) Option { return fakeopenai.WithEmbed(fn) }

// WithRerank sets the re-rank function (default WordOverlap).
func WithRerank(fn RerankFunc) Option { return fakeopenai.WithRerank(fn) }

// WordOverlap is the default RerankFunc: each document scores the number
// of distinct words (lower-cased, split on anything not a letter or digit)
// it shares with the query. It is deterministic, without a model.
func WordOverlap(req RerankRequest) ([]float64, error) { return fakeopenai.WordOverlap(req) }

// Text is a reply whose assistant message says content (finish reason
// "stop").
func Text(content string) Reply { return fakeopenai.Text(content) }

// Calls is a reply whose assistant message requests the given tool calls
// (finish reason "tool_calls"); build them with ToolCall.
func Calls(calls ...openai.ToolCall) Reply { return fakeopenai.Calls(calls...) }

// ToolCall builds one function tool call; args is the arguments text
// exactly as a model would send it (it need not be valid JSON).
func ToolCall(id, name, args string) openai.ToolCall { return fakeopenai.ToolCall(id, name, args) }

// Error is a reply answering status with an OpenAI-style error body
// carrying message.
func Error(status int, message string) Reply { return fakeopenai.Error(status, message) }

// Malformed is a reply answering 200 with body sent verbatim.
func Malformed(body string) Reply { return fakeopenai.Malformed(body) }

// Empty is a reply answering 200 with an empty body.
func Empty() Reply { return fakeopenai.Empty() }

// HashEmbed returns a deterministic embed function: words hashed into dims
// buckets with a ±1 sign, L2-normalised (dims ≤ 0 means DefaultDims).
func HashEmbed(dims int) EmbedFunc { return fakeopenai.HashEmbed(dims) }

// ValidateChat reports the first way req breaks the OpenAI chat rules the
// server enforces (every assistant tool call answered by a tool message,
// every tool message answering a call, no streaming), or nil.
func ValidateChat(req openai.ChatCompletionRequest) error { return fakeopenai.ValidateChat(req) }
