// Package fakeopenai is an in-process, OpenAI-compatible fake server for
// tests: POST /v1/chat/completions and POST /v1/embeddings on an
// httptest.Server, driven by the real go-openai client, and POST /v1/rerank
// (the cross-encoder API of Cohere, Jina, vLLM and llama.cpp; SetRerank,
// SetRerankDelay; the default scores word overlap).
//
// A test scripts the chat side with a queue of canned replies (Enqueue, with
// Text, Calls, Error, Malformed, Empty and Reply.Delay) or with a responder
// function (SetChat), and the embeddings side with an embed function
// (SetEmbed; the default is a deterministic hashing embedder). Every request
// is recorded (Requests, ChatRequests, EmbedRequests, Count) so a test can
// assert what the code under test actually sent.
//
//	srv := fakeopenai.New(t)
//	srv.Enqueue(
//		fakeopenai.Calls(fakeopenai.ToolCall("call_1", "updateWorkingMemory", `{"city":"Porto"}`)),
//		fakeopenai.Text("Noted."),
//	)
//	client := srv.Client() // *openai.Client with BaseURL = srv.URL ("…/v1")
//
// # Imports
//
// A test double, imported by tests and by package openaitest, its public
// face (which examples/agentloop's offline mode uses). It may import
// internal/tokens (to count tokens as mnemo does) and nothing else of mnemo.
//
// # Invariants
//
//   - The server checks every request like the real API would: method POST,
//     a known path under /v1, a JSON body that decodes into the go-openai
//     request type, a non-empty model, "Authorization: Bearer <key>" when a
//     key is configured, and for chat the OpenAI message-ordering rules
//     (ValidateChat: every assistant tool call answered by a tool message,
//     every tool message answering a call, no streaming). A request that
//     breaks a rule is answered 400/401/404/405 with an OpenAI-style error
//     body and recorded as a violation.
//   - Unless the server was created with Lenient, violations fail the test
//     when it ends (in the cleanup New registers), so a test cannot pass
//     while its code sends requests the real API would refuse. A chat
//     request that arrives with no reply scripted is a violation too.
//   - Replies are served in order, one per chat request; a responder set
//     with SetChat is used when the queue is empty.
//   - Missing response fields are filled in as the real API would (id,
//     object, created, model, choice index, role "assistant", finish reason
//     "tool_calls" or "stop", tool call type "function", usage).
//   - Recorded requests are copies: a test may keep and modify them.
//
// # Concurrency
//
// Server is safe for concurrent use: requests may arrive from many
// goroutines, and a test may enqueue, swap functions and read the record
// while requests are in flight. A Delay honours the request's context, so a
// client timeout ends the handler.
//
// # Errors
//
// A responder or embed function returning a *StatusError makes the server
// answer with that HTTP status and an OpenAI-style error body; any other
// error becomes a 500. go-openai turns those bodies into *openai.APIError,
// so errors.As works in the code under test.
package fakeopenai
