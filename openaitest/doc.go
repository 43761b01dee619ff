// Package openaitest provides an in-process, OpenAI-compatible server for
// tests and offline programs, in the style of net/http/httptest: POST
// /v1/chat/completions, /v1/embeddings and /v1/rerank on a loopback
// httptest.Server, driven by the real go-openai client (and by
// recall.NewOpenAIReranker for re-rank). Programs written
// against mnemo (the examples in examples/ among them), their tests and
// mnemo's own tests run with it without a network or an API key.
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
// Count), so a test can assert what the code under test actually sent.
//
// # Imports
//
// go-openai, and internal/tokens (a response's usage counts tokens as
// mnemo does); nothing else of mnemo.
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
//     function answers when the queue is empty. A chat request that
//     arrives with neither is a violation.
//   - Missing response fields are filled in as the real API would (id,
//     object, created, model, choice index, role "assistant", finish
//     reason "tool_calls" or "stop", tool call type "function", usage).
//   - Recorded requests are copies: a test may keep and modify them.
//
// # Concurrency
//
// Server is safe for concurrent use: requests may arrive from many
// goroutines while replies are enqueued, functions swapped and the record
// read. A delay (Reply.Delay, Server.SetEmbedDelay, SetRerankDelay)
// honours the request's context, so a client timeout ends the handler.
//
// # Errors
//
// A responder, embed or re-rank function returning a *StatusError makes the server
// answer with that HTTP status and an OpenAI-style error body; a
// *RawResponse sends its body verbatim; any other error becomes a 500.
// go-openai turns error bodies into *openai.APIError.
package openaitest
