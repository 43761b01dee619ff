// Package openaitest provides an in-process, OpenAI-compatible server for
// tests and offline programs, in the style of net/http/httptest: POST
// /v1/chat/completions and POST /v1/embeddings on a loopback
// httptest.Server, driven by the real go-openai client. It is the public
// face of the fake the module's own tests use, so that programs written
// against mnemo (the examples in examples/ among them) can run without a
// network or an API key.
//
//	srv := openaitest.Start(openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
//		return openaitest.Text("Noted.").Response, nil
//	}))
//	defer srv.Close()
//	client := srv.Client() // *openai.Client with BaseURL = srv.URL ("…/v1")
//
// A test scripts the chat side with a queue of canned replies
// (Server.Enqueue with Text, Calls, Error, Malformed and Empty) or with a
// responder function (WithChat, Server.SetChat), and the embeddings side
// with an embed function (WithEmbed; the default is HashEmbed(DefaultDims),
// a deterministic hashing embedder). Every request is recorded
// (Server.Requests, ChatRequests, EmbedRequests, Count).
//
// # Imports
//
// It wraps internal/fakeopenai (the module's own tests use that package
// directly) and imports nothing else of mnemo.
//
// # Invariants
//
//   - The server checks every request like the real API would: method
//     POST, a known path under /v1, a JSON body that decodes into the
//     go-openai request type, a non-empty model, "Authorization: Bearer
//     <key>" when a key is configured (DefaultAPIKey unless WithAPIKey), and
//     for chat the OpenAI message-ordering rules (ValidateChat). A request
//     that breaks a rule is answered 400/401/404/405 with an OpenAI-style
//     error body and recorded as a violation (Server.Violations).
//   - A server made by New fails its test at cleanup when a violation was
//     recorded, unless Lenient was given; a server made by Start never
//     fails anything on its own.
//   - Replies are served in order, one per chat request; the responder
//     function answers when the queue is empty.
//
// # Concurrency
//
// Server is safe for concurrent use: requests may arrive from many
// goroutines while replies are enqueued and the record is read.
//
// # Errors
//
// A responder or embed function returning a *StatusError makes the server
// answer with that HTTP status and an OpenAI-style error body; a
// *RawResponse sends its body verbatim; any other error becomes a 500.
// go-openai turns error bodies into *openai.APIError.
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
