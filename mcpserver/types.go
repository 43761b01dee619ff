package mcpserver

// Tool inputs and outputs. Field docs in `jsonschema` tags are the
// descriptions a model reads; JSON names are camelCase as in the HTTP API.

import (
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/server"
)

// AppendInput is memory_append's input.
type AppendInput struct {
	// ThreadID (threadId, required) is the conversation to append to; it is created on first use.
	ThreadID string `json:"threadId" jsonschema:"the conversation to append to; it is created on first use (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// ResourceID (resourceId) owns the thread; empty: the thread's owner, or the client's only resource.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the user or tenant owning the thread; may be left out when the thread exists or the client may use only one resource (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// Messages (messages, required) are the turns to store, oldest first.
	Messages []AppendMessage `json:"messages" jsonschema:"the turns to store, oldest first"`
}

// AppendMessage is one turn to store.
type AppendMessage struct {
	// Role (role, required) is "user" or "assistant".
	Role string `json:"role" jsonschema:"user or assistant (tool turns need tool-call ids; use the HTTP API)"`
	// Content (content) is the text of the turn.
	Content string `json:"content" jsonschema:"the text of the turn"`
	// Name (name) is the optional speaker name; empty: none.
	Name string `json:"name,omitempty" jsonschema:"optional speaker name"`
	// ID (id) is an optional stable id; the same id and content again is a no-op. Left out: one is assigned; "" is refused (checkArgs).
	ID string `json:"id,omitempty" jsonschema:"optional stable id; storing the same id and content again is a no-op (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
}

// AppendOutput is memory_append's result.
type AppendOutput struct {
	// ThreadID (threadId) is the thread appended to.
	ThreadID string `json:"threadId"`
	// ResourceID (resourceId) is the thread's owner.
	ResourceID string `json:"resourceId"`
	// Seqs (seqs) is each turn's position in the thread, in input order.
	Seqs []int64 `json:"seqs" jsonschema:"the position of each stored turn in the thread"`
	// IDs (ids) is each turn's message id, in input order.
	IDs []string `json:"ids" jsonschema:"the id of each stored turn"`
	// Stored (stored) counts the turns written now; the rest were stored already.
	Stored int `json:"stored" jsonschema:"turns written now (the rest were already stored)"`
	// Created (created) is true when this call started the thread.
	Created bool `json:"created,omitempty" jsonschema:"the thread was started by this call"`
	// Evicted (evicted) names the threads of the principal's resources
	// that the store's quota erased after this append (server.AppendResult.Evicted:
	// another tenant's are never named).
	Evicted []string `json:"evicted,omitempty" jsonschema:"threads of your resources the store's quota erased after this append (least recently active first)"`
}

// MaxSearchTopK bounds memory_search's topK (its description says so): each
// hit comes with the turn before and after it, so 50 hits are up to 150
// turns in one tool result. More is refused naming topK.
const MaxSearchTopK = 50

// SearchInput is memory_search's input.
type SearchInput struct {
	// Query (query, required) is what to look for, in words.
	Query string `json:"query" jsonschema:"what to look for, in words"`
	// ResourceID (resourceId) is whose memory to search; empty: threadId's owner, or the client's only resource.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"whose memory to search; may be left out when threadId is given or the client may use only one resource"`
	// ThreadID (threadId) limits the search to one conversation; empty: all of the resource's.
	ThreadID string `json:"threadId,omitempty" jsonschema:"search only this conversation"`
	// TopK (topK) is how many best matches, 1 to MaxSearchTopK; 0: 5.
	TopK int `json:"topK,omitempty" jsonschema:"how many best matches (default 5, at most 50); each comes with its neighbouring turns"`
	// At (at) is when the question is asked, RFC 3339; relative dates resolve against it. Empty: the server clock; the zero time is refused.
	At string `json:"at,omitempty" jsonschema:"when the question is asked (RFC 3339, e.g. 2023-05-11T09:00:00Z): its relative dates (yesterday, last week, two months ago) are resolved against it; default: the server clock (the zero time 0001-01-01T00:00:00Z is refused)"`
}

// SearchHit is one turn found.
type SearchHit struct {
	// ThreadID (threadId) is the turn's conversation.
	ThreadID string `json:"threadId"`
	// Seq (seq) is the turn's position in its thread.
	Seq int64 `json:"seq"`
	// MessageID (messageId) is the turn's id.
	MessageID string `json:"messageId"`
	// Role (role) is the turn's role (user, assistant, tool).
	Role string `json:"role"`
	// Content (content) is the turn's text as a prompt shows it
	// (render.Message): marker-shaped text quoted ("[quoted: recalled …"),
	// bidirectional, tag and control characters as escapes ("\u202e").
	Content string `json:"content" jsonschema:"the turn's text as a prompt shows it: marker-like text quoted as [quoted: recalled …, invisible direction and control characters written as escapes such as \\u202e"`
	// Name (name) is the speaker, or a tool turn's tool, rendered as
	// Content is; empty: none.
	Name string `json:"name,omitempty" jsonschema:"the speaker, or the tool a tool turn answers for"`
	// ToolCalls (toolCalls) are an assistant turn's tool calls, their
	// arguments as memory_context gives them (ContextToolCall).
	ToolCalls []ContextToolCall `json:"toolCalls,omitempty" jsonschema:"the tool calls of an assistant turn"`
	// ToolCallID (toolCallId) is the call a tool turn answers, rendered
	// as the calls' ids are.
	ToolCallID string `json:"toolCallId,omitempty" jsonschema:"the id of the call a tool turn answers"`
	// CreatedAt (createdAt) is when the turn was said, RFC 3339.
	CreatedAt string `json:"createdAt" jsonschema:"when the turn was said (RFC 3339)"`
	// Reason (reason) is "hit" for a match, "range" for a neighbouring turn.
	Reason string `json:"reason" jsonschema:"hit for a match, range for a neighbouring turn"`
	// Score (score) is a hit's fused relevance, higher is better; nil for a neighbour.
	Score *float64 `json:"score,omitempty" jsonschema:"fused relevance of a hit; higher is better"`
}

// SearchOutput is memory_search's result.
type SearchOutput struct {
	// Hits (hits) are best match first, each followed by its neighbours; never nil.
	Hits []SearchHit `json:"hits" jsonschema:"best match first, each followed by its neighbours"`
	// Retrieval (retrieval) says how the lexical and vector channels fared, as "lexical <state>, vector <state>".
	Retrieval string `json:"retrieval" jsonschema:"how the lexical and vector channels fared"`
}

// ContextInput is memory_context's input.
type ContextInput struct {
	// ThreadID (threadId, required) is the conversation whose next prompt is built.
	ThreadID string `json:"threadId" jsonschema:"the conversation whose next prompt is being built (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// ResourceID (resourceId) is the thread's owner; needed only for a thread with no turns yet when the client may use more than one resource.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the thread's owner; needed only for a thread with no turns yet, when the client may use more than one resource (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// Query (query) is what recall looks for; empty: the newest user turn. Recorded in the run's provenance.
	Query string `json:"query,omitempty" jsonschema:"what recall should look for; default: the newest user turn; recorded in the run's provenance"`
	// RecentN (recentN) is how many recent turns to include; 0: the server's setting.
	RecentN int `json:"recentN,omitempty" jsonschema:"how many recent turns to include (default: the server's)"`
	// TopK (topK) is how many older turns to recall; 0: the server's configured recall, or recall.DefaultTopK (5) when it configures none.
	TopK int `json:"topK,omitempty" jsonschema:"how many older turns to recall (default: the server's recall settings, else 5)"`
	// RunID (runId) names the run; its provenance is mnemo://runs/{runId}/memctx. Empty: one is assigned.
	RunID string `json:"runId,omitempty" jsonschema:"a name for this run; its provenance record is mnemo://runs/{runId}/memctx (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// At (at) is when the question is asked, RFC 3339; the query's relative dates resolve against it. Empty: the server clock; the zero time is refused.
	At string `json:"at,omitempty" jsonschema:"when the question is asked (RFC 3339, e.g. 2023-05-11T09:00:00Z): the query's relative dates (yesterday, last week, two months ago) are resolved against it; default: the server clock (the zero time 0001-01-01T00:00:00Z is refused); recorded as memctx.queryAt"`
}

// searchHit is a found turn as memory_search gives it to a model: its
// stored text rendered as a prompt shows it (render.Message), its calls'
// arguments as memory_context gives them (engine.OpenAIArguments). A
// tool's result is read by the model as a prompt is: raw, a stored
// "[recalled · thread t1 …" would pass for mnemo's marker and a U+202E
// draw the text otherwise for whoever reviews it (mark58).
func searchHit(hit engine.SearchHit) SearchHit {
	m := hit.Message
	out := SearchHit{ThreadID: m.ThreadID, Seq: m.Seq, MessageID: m.ID, Role: m.Role, Content: render.Message(m.Content),
		Name: render.Message(m.Name), ToolCallID: render.Message(m.ToolCallID), CreatedAt: m.CreatedAt.Format(time.RFC3339),
		Reason: hit.Reason, Score: hit.Score}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ContextToolCall{ID: render.Message(c.ID), Name: render.Message(c.Name),
			Arguments: engine.OpenAIArguments(c.Arguments)})
	}
	return out
}

// ContextToolCall is a tool call of a composed context's turn, as the
// model is to read it (server.ContextToolCall).
type ContextToolCall struct {
	// ID (id) is the call's id; the tool turn answering it names it as toolCallId.
	ID string `json:"id" jsonschema:"the call's id; the tool turn answering it names it as toolCallId"`
	// Name (name) is the tool called.
	Name string `json:"name" jsonschema:"the tool called"`
	// Arguments (arguments) is OpenAI's function.arguments, a string, as
	// engine.OpenAIArguments renders it (server.ContextToolCall.Arguments).
	Arguments string `json:"arguments" jsonschema:"the call's arguments as the model is to read them, a string as OpenAI's function.arguments: an object's JSON text with bidirectional, tag and control characters as JSON escapes, or a model's text that held no object rendered as message content is"`
}

// contextToolCalls gives a composed message's calls as ContextToolCalls,
// each id and name rendered as memory_search renders them
// (render.Message: a stored "[recalled · …" id is "[quoted: recalled · …",
// a U+202E "\u202e"); nil for none.
func contextToolCalls(calls []server.ContextToolCall) []ContextToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ContextToolCall, len(calls))
	for i, c := range calls {
		out[i] = ContextToolCall{ID: render.Message(c.ID), Name: render.Message(c.Name), Arguments: c.Arguments}
	}
	return out
}

// ContextMessage is one message of a composed context.
type ContextMessage struct {
	// Role (role) is the message's role (user, assistant, tool).
	Role string `json:"role"`
	// Content (content) is the message's text.
	Content string `json:"content"`
	// Name (name) is the speaker, or a tool turn's tool, as the library
	// composes it (engine.OpenAIName: [A-Za-z0-9_-], at most 64 bytes);
	// empty: none.
	Name string `json:"name,omitempty" jsonschema:"the speaker, or the tool a tool turn answers for, reduced to [A-Za-z0-9_-] (at most 64) as OpenAI accepts it"`
	// ToolCalls (toolCalls) are an assistant turn's tool calls, their
	// arguments as the model is to read them (server.ContextToolCall).
	ToolCalls []ContextToolCall `json:"toolCalls,omitempty" jsonschema:"the tool calls of an assistant turn"`
	// ToolCallID (toolCallId) is the call a tool turn answers.
	ToolCallID string `json:"toolCallId,omitempty" jsonschema:"the id of the call a tool turn answers"`
	// ThreadID (threadId) is the conversation the message comes from.
	ThreadID string `json:"threadId"`
	// Seq (seq) is the message's position in its thread.
	Seq int64 `json:"seq"`
	// Reason (reason) is "hit", "range" or "repair" for a recalled turn; empty for the recent window.
	Reason string `json:"reason,omitempty" jsonschema:"hit, range or repair for a recalled turn; empty for the recent window"`
}

// ContextOutput is memory_context's result.
type ContextOutput struct {
	// RunID (runId) is the run's name, given or assigned.
	RunID string `json:"runId"`
	// System (system) is the memory section for the system prompt.
	System string `json:"system" jsonschema:"the memory section for the system prompt (observations, working memory, how to read recalled turns)"`
	// Messages (messages) are the recalled turns, then the recent window, in prompt order.
	Messages []ContextMessage `json:"messages" jsonschema:"recalled turns, then the recent window, in prompt order"`
	// PromptHash (promptHash) is "sha256:<hex>" over the composed context.
	PromptHash string `json:"promptHash"`
	// Recalled (recalled) counts the older turns recall brought.
	Recalled int `json:"recalled" jsonschema:"how many older turns recall brought"`
	// Dropped (dropped) counts the turns left out (budget, pairing); the memctx resource says why.
	Dropped int `json:"dropped" jsonschema:"how many were left out (budget, pairing); the memctx resource says why"`
}

// WorkingMemoryInput names a working memory.
type WorkingMemoryInput struct {
	// ThreadID (threadId) selects the thread-scoped working memory; empty: resource scope.
	ThreadID string `json:"threadId,omitempty" jsonschema:"the conversation whose working memory to use"`
	// ResourceID (resourceId) selects the resource-scoped working memory; empty: threadId's, or the client's only resource. With threadId it must be the thread's owner.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the user's working memory (resource scope); may be left out with threadId or when the client may use only one resource; with threadId it must be the thread's"`
}

// WorkingMemoryUpdateInput is working_memory_update's input.
type WorkingMemoryUpdateInput struct {
	// ThreadID (threadId) selects the thread-scoped working memory; empty: resource scope.
	ThreadID string `json:"threadId,omitempty" jsonschema:"the conversation whose working memory to change (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// ResourceID (resourceId) selects the resource-scoped working memory; with threadId it must be the thread's owner.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the user's working memory (resource scope); with threadId it must be the thread's (an id: 1-128 characters of A-Za-z0-9_.:@-, not \".\" or \"..\", not beginning with erased-)"`
	// Content (content) is the whole new state as sent (server.StateContent): its text as a JSON string (a JSON object's text in schema mode, markdown in template mode) or, in schema mode, the JSON object itself. Nil (left out or null): Patch applies.
	Content server.StateContent `json:"content,omitempty" jsonschema:"the whole new state: in schema mode a JSON object (or its text as a string), in template mode a markdown document (a string)"`
	// Patch (patch) changes fields in schema mode only; a null deletes a field, lists are replaced whole.
	Patch map[string]any `json:"patch,omitempty" jsonschema:"schema mode only: the fields to change (null deletes a field; lists are replaced whole)"`
}

// WorkingMemoryOutput is a working-memory state.
type WorkingMemoryOutput struct {
	// Key (key) is "thread:<id>" or "resource:<id>".
	Key string `json:"key" jsonschema:"thread:<id> or resource:<id>"`
	// Mode (mode) is "schema" (a JSON object) or "template" (markdown).
	Mode string `json:"mode" jsonschema:"schema (a JSON object) or template (markdown)"`
	// Content (content) is the state's text as a model is to read it
	// (wmOutput): marker-shaped text quoted, bidirectional, tag and control
	// characters as escapes.
	Content string `json:"content" jsonschema:"the state's text (a JSON object's text in schema mode, markdown in template mode), marker-like text quoted as [quoted: recalled …, invisible direction and control characters written as escapes such as \\u202e"`
	// Version (version) counts the writes; 0 when never written.
	Version int64 `json:"version" jsonschema:"0 when never written"`
	// UpdatedAt (updatedAt) is when it was last written, RFC 3339; empty when never written.
	UpdatedAt string `json:"updatedAt,omitempty" jsonschema:"when it was last written (RFC 3339); absent when never written"`
	// Changed (changed) is set after an update only: false when nothing changed.
	Changed *bool `json:"changed,omitempty" jsonschema:"after an update: false when nothing changed"`
}

// DeleteInput is memory_delete's input: exactly one target.
type DeleteInput struct {
	// MessageID (messageId) erases this one turn.
	MessageID string `json:"messageId,omitempty" jsonschema:"erase this one turn"`
	// ThreadID (threadId) erases this whole conversation.
	ThreadID string `json:"threadId,omitempty" jsonschema:"erase this whole conversation"`
	// ResourceID (resourceId) erases everything of this user.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"erase everything of this user"`
}

// DeleteOutput is memory_delete's result.
type DeleteOutput struct {
	// Messages (messages) are the ids of the turns erased.
	Messages []string `json:"messages" jsonschema:"ids of the turns erased"`
	// Threads (threads) are the ids of the conversations erased.
	Threads []string `json:"threads,omitempty"`
	// Invalidated (invalidated) are the observations invalidated because their sources were erased.
	Invalidated []string `json:"invalidated,omitempty" jsonschema:"observations invalidated because their sources were erased"`
	// Runs (runs) counts the run records (memctx records) of the erased conversations deleted, as the DELETE routes' runs.
	Runs int `json:"runs" jsonschema:"how many run records (the context loaded for a turn) of the erased conversations were deleted"`
	// PurgeIncomplete is server.EraseResult.PurgeIncomplete.
	PurgeIncomplete string `json:"purgeIncomplete,omitempty" jsonschema:"set when the erased turns are unreadable already but their physical purge did not finish (it is retried): why"`
	// Warning (warning) is set when kept damaged files may still hold what was erased; the operator must delete them.
	Warning string `json:"warning,omitempty" jsonschema:"set when copies of the database file, of its write-ahead log and -shm or of its indexes, set aside by a salvage or by an open that found the log damaged, may still hold what was erased (no erasure reaches them): tell the user; the operator must delete them once no longer needed"`
}
