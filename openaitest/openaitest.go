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
)

// DefaultAPIKey is the bearer token Server.Client sends and the server
// expects unless WithAPIKey changes it.
const DefaultAPIKey = fakeopenai.DefaultAPIKey

// DefaultDims is the dimension of the default embed function's vectors.
const DefaultDims = fakeopenai.DefaultDims

type (
	// Server is a running fake OpenAI endpoint; its URL field is the base
	// URL to give go-openai (it ends in "/v1"). It is safe for concurrent
	// use. Close shuts it down and is idempotent; Client returns a
	// go-openai client for it; Enqueue, SetChat and SetEmbed script it;
	// Requests, ChatRequests, LastChat, EmbedRequests, Count, Pending and
	// Violations read its record.
	Server = fakeopenai.Server
	// Option configures New and Start.
	Option = fakeopenai.Option
	// Reply is one scripted answer to a chat request (Response, or an error
	// with Err, or a verbatim body with Raw and Status; Delay and Check
	// optional). The zero Reply answers 200 with an empty assistant
	// message.
	Reply = fakeopenai.Reply
	// ChatFunc answers one chat completion request; missing response fields
	// are filled in as the real API would.
	ChatFunc = fakeopenai.ChatFunc
	// EmbedFunc returns one vector per input, in input order.
	EmbedFunc = fakeopenai.EmbedFunc
	// EmbedRequest is an embeddings request with its input normalised to a
	// list of strings.
	EmbedRequest = fakeopenai.EmbedRequest
	// Request is one recorded HTTP request.
	Request = fakeopenai.Request
	// StatusError, returned by a ChatFunc or EmbedFunc, answers with its
	// HTTP Status and an OpenAI-style error body carrying its Message.
	StatusError = fakeopenai.StatusError
	// RawResponse, returned by a ChatFunc or EmbedFunc, sends Body verbatim
	// with Status (0 means 200).
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
