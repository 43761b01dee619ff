// Package server is mnemo's HTTP JSON API: versioned routes under /v1 over
// one engine.Engine, per-token tenants, RFC 9457 problem details, an
// OpenAPI 3.1 document generated from the same route table that builds the
// mux, Prometheus metrics and structured access logs. `mnemo serve` wires it.
//
// # Imports
//
// Owns no data: every request goes through engine. It may import engine and
// the packages whose types the API carries (journal, observe, recall,
// working).
//
// # Tenants
//
// A Tokens set maps bearer tokens to the resources they may touch, or to
// every resource ("*", an operator token). Without a Tokens set every
// request acts as the operator (cmd/mnemo refuses to listen beyond loopback
// then). A request about a thread, run, message or resource the token may
// not touch is answered exactly as if it did not exist: 404 with the same
// problem type and a detail that names only what the request named.
//
// Tenant (a Principal over the engine) holds the operations behind the
// routes and the lookups they go through; the MCP tools (package
// mcpserver) and the inspector use it too, so every way in applies the
// same checks. Thread and run ids are global names: a taken id cannot
// answer as a free one (an append to another tenant's thread id is a 404
// where a free id succeeds; a taken run id is a 409).
//
// Config.Mount adds authenticated handlers (/mcp, /ui/), Config.Public
// unauthenticated ones (the sign-in page). A browser signed in by the
// inspector carries a session id (Sessions, in memory; never the token) in
// the SessionCookie cookie, which authenticates GET (and HEAD) requests of
// Config.CookieMount (the inspector's pages, /ui/) only while the session
// lives: the API, /mcp and every write need the bearer token.
//
// An AuthLimiter (Config.AuthLimiter, shared with the inspector's sign-in)
// bounds failed authentications per client address: past its burst, a
// request of that address sending a token is a 429 without its token
// being checked.
//
// # Invariants
//
//   - Every route of the mux is in the OpenAPI document and every operation
//     of the document is a route (both come from one table, routes.go).
//   - A response never names a resource the token may not touch, and no
//     status code tells a foreign object from a missing one.
//   - Request bodies are bounded (Config.MaxBodyBytes); unknown JSON fields
//     are rejected with the field named.
//   - Errors are application/problem+json with a stable type URI per
//     condition (problem.go); the engine's sentinels map to fixed statuses.
//
// # Concurrency
//
// A Server is safe for concurrent use; it holds no per-request state beyond
// the request. Sessions, the inspector's sign-ins, and the AuthLimiter's
// buckets are the state shared between requests: maps under a mutex,
// bounded by their caps, lost when the process ends. Serve shuts down gracefully when its context ends: the
// listener closes, in-flight requests finish (up to Config.ShutdownTimeout;
// those still running then are cut off, ErrShutdownTimeout, and Serve
// waits up to CutOffWait for their handlers to return), then Serve
// returns; the caller closes the engine after.
//
// # Errors
//
// New, NewSessions and NewAuthLimiter return ErrInvalidConfig; LoadTokens
// returns ErrInvalidTokens naming the entry and field at fault;
// AuthLimiter.Check returns a *TooManyFailuresError matching
// ErrTooManyFailures; Serve returns ErrShutdownTimeout, with how many
// requests it cut off, when its shutdown outlasts Config.ShutdownTimeout.
package server
