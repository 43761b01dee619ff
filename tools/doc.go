// Package tools holds mnemo's model-facing tools — go-openai openai.Tool
// definitions and their dispatch — and the Registry through which an agent
// loop offers them and handles the model's tool calls.
//
// The built-in tool is updateWorkingMemory (UpdateWorkingMemory): in schema
// mode its parameters are the working memory's schema with every property
// optional and nested schemas inlined (no $ref), and its arguments are a JSON
// Merge Patch; in template mode its parameters are {memory} or {search,
// replace}. Other tools (recallObservations) opt in by implementing Tool and
// calling Registry.Register.
//
// # Imports
//
// Owns no table: each tool writes through the package that owns what it
// changes. It may import journal (exactly-once applications), observe,
// working and internal/render; never engine.
//
// # Invariants
//
//   - Names and descriptions are constants (golden-tested): a prompt change
//     is a reviewed change.
//   - Handle applies a tool call at most once per (run id, tool call id)
//     through journal.Apply: a resumed run that handles the same call again,
//     also after a restart, gets the recorded result byte for byte and
//     nothing is applied twice.
//   - Bad arguments never panic and never fail Handle: the model gets a tool
//     result that says what is wrong, and that result is recorded like any
//     other. Only infrastructure failures (storage, context) are returned as
//     errors, and those record nothing, so the call can be retried.
//   - A read-only working memory has no tool: UpdateWorkingMemory refuses it.
//
// # Concurrency
//
// Registry is safe for concurrent use; Register may run while others call
// Definitions or Handle. Tools must be safe for concurrent use.
//
// # Errors
//
// ErrDuplicateTool, ErrInvalidTool, ErrNoCallID and ErrReadOnly; errors from
// the journal and from tools are wrapped with the tool name and call id. A
// tool call id reused in a run for another call (journal.ErrCallReused) is
// not an error: Handle answers it with a refusal result.
package tools
