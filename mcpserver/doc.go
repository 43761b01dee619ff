// Package mcpserver exposes a mnemo engine to MCP clients (Claude Desktop,
// Claude Code, Cursor, any client of the official SDKs) with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk): the tools memory_append,
// memory_search, memory_context, working_memory_get, working_memory_update
// and memory_delete, and the resources mnemo://runs/{run}/memctx and
// mnemo://threads/{thread}/messages{?beforeSeq,limit} (a page of turns,
// MessagesTemplate). `mnemo mcp` serves it over stdio;
// `mnemo serve` at /mcp over streamable HTTP with the API's bearer tokens.
//
// # Imports
//
// Owns no data. It may import engine, server (the tenant and token model it
// shares), recall, working and internal/jsonkey (the nesting depth scan).
//
// # Invariants
//
//   - Every tool and resource acts as one server.Principal through
//     server.Tenant, the same checks as the HTTP API: what belongs to a
//     resource the principal may not touch is answered exactly as what does
//     not exist, and tool errors name only what the caller named.
//   - memory_delete is refused unless the principal may erase.
//
// # Concurrency
//
// A server built by New is safe for concurrent sessions; Handler keeps one
// streamable HTTP handler per principal, so a session id is valid only with
// the token that opened it. Its sessions are bounded per token and in all
// (Options.MaxSessionsPerToken, Options.MaxSessions): one more closes the
// least recently used.
//
// # Errors
//
// Tool failures are tool results with isError set and a text that says what
// to change (the problem detail of server.Tenant.Describe: a lost database
// connection is "Service unavailable … try again later"); protocol errors are
// JSON-RPC errors (an unknown resource is ResourceNotFound).
package mcpserver
