// Package openaitest provides an in-process, OpenAI-compatible server for
// tests and offline programs, in the style of net/http/httptest: POST
// /v1/chat/completions, /v1/embeddings and /v1/rerank on a loopback
// httptest.Server, driven by the real go-openai client (and by
// recall.NewOpenAIReranker for re-rank). It is the public
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
// a deterministic hashing embedder), the re-rank side with a re-rank
// function (WithRerank; the default is WordOverlap). Every request is
// recorded (Server.Requests, ChatRequests, EmbedRequests, RerankRequests,
// Count). Server, Reply and the other types are aliases of the internal
// fake's: their comments here list their fields and methods.
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
// A responder, embed or re-rank function returning a *StatusError makes the server
// answer with that HTTP status and an OpenAI-style error body; a
// *RawResponse sends its body verbatim; any other error becomes a 500.
// go-openai turns error bodies into *openai.APIError.
package openaitest
