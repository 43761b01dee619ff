// Package tokens is mnemo's one token estimator. Every figure mnemo
// reports or budgets in tokens — the estimate stored with each message, the
// observer's and reflector's thresholds and chunks, LoadContext's token
// budget and the memctx token figures — comes from here, so they agree.
//
// The estimate is about 4 bytes a token, the usual rule of thumb for English
// with BPE tokenizers (OpenAI's tokenizer guide), rounded up, plus
// PerMessage for a chat message's framing. A message counts its content,
// its name and its tool calls encoded as JSON, so a tool exchange is not
// counted as the few tokens of its empty content.
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so every package that counts
// tokens can use it.
//
// # Invariants
//
//   - Text, Message and Calls are pure functions of their input; equal input
//     gives equal estimates in every package.
//   - Message(c, n, CallsJSON(calls)) is what the engine stores for a
//     message, whoever computes it.
//
// # Concurrency
//
// Everything here is safe for concurrent use.
//
// # Errors
//
// None: input that cannot be encoded is counted by its length.
package tokens
