package server

import (
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// The API's JSON: camelCase names, times in RFC 3339 (UTC), ids as strings.
// Request types carry omitempty on optional fields so that the OpenAPI
// document marks exactly the required ones.

// MessageIn is one message of an append request.
type MessageIn struct {
	// ID (id) is the client's id for the message; left out: a ULID is
	// generated. Given as "", it is refused (EmptyIDMember). The same id
	// with the same content again is a no-op.
	ID string `json:"id,omitempty" jsonschema:"description=optional client id; a ULID is generated when it is left out (\"\" is refused). Appending the same id with the same content again is a no-op"`
	// Role (role, required) is "user", "assistant" or "tool".
	Role string `json:"role" jsonschema:"enum=user,enum=assistant,enum=tool"`
	// Content (content) is the message's text; a user message needs
	// non-blank content, an assistant message content or tool calls.
	Content string `json:"content,omitempty"`
	// Name (name) is the speaker or tool name; empty: none.
	Name string `json:"name,omitempty" jsonschema:"description=speaker or tool name"`
	// ToolCalls (toolCalls) are the calls an assistant message makes;
	// assistant messages only.
	ToolCalls []engine.ToolCall `json:"toolCalls,omitempty" jsonschema:"description=assistant messages only"`
	// ToolCallID (toolCallId) is the call a tool message answers; tool
	// messages only.
	ToolCallID string `json:"toolCallId,omitempty" jsonschema:"description=tool messages only: the call answered"`
	// Metadata (metadata) is a JSON object recall can filter on; nil: none.
	Metadata map[string]any `json:"metadata,omitempty" jsonschema:"description=a JSON object\\, filterable by recall"`
	// CreatedAt (createdAt) is when the turn was said; nil: the server
	// clock. The zero time and a time more than a day past the server clock
	// are refused.
	CreatedAt *time.Time `json:"createdAt,omitempty" jsonschema:"description=when the turn was said (RFC 3339); defaults to the server clock; the zero time 0001-01-01T00:00:00Z and a time more than a day past the server clock are refused"`
}

// AppendBody is the body of POST /v1/threads/{thread}/messages.
type AppendBody struct {
	// ResourceID (resourceId) is the thread's owner and must match a stored
	// thread's; empty: the stored thread's, or the token's only resource.
	// Required when neither decides (an operator token, several resources).
	ResourceID string `json:"resourceId,omitempty" jsonschema:"description=the thread's owner; must match a stored thread's; left out: the stored thread's or else the token's only resource; required when neither decides (an operator token or one of several resources)"`
	// Messages (messages, at least one) are the turns to store, oldest first.
	Messages []MessageIn `json:"messages" jsonschema:"minItems=1"`
}

// ContextBody is the body of POST /v1/context (engine.LoadRequest).
type ContextBody struct {
	// ThreadID (threadId, required) is the thread whose prompt is built.
	ThreadID string `json:"threadId"`
	// ResourceID (resourceId) is the thread's owner; empty: the stored
	// thread's, or for a new thread the token's only resource (else 404).
	ResourceID string `json:"resourceId,omitempty" jsonschema:"description=the thread's owner; left out: the stored thread's\\, or for a new thread the token's only resource; a new thread of an operator token or one of several resources needs it (else 404)"`
	// Query (query) drives recall; empty: the newest user message. It is
	// recorded in memctx.query even with recall off (Context.Notice then says so).
	Query string `json:"query,omitempty" jsonschema:"description=drives recall; empty means the newest user message; recorded in memctx.query even with recall off (the answer's notice then says nothing was recalled)"`
	// RecentN (recentN) is the recent window in turns; 0: the server
	// default; negative: no recent window.
	RecentN int `json:"recentN,omitempty" jsonschema:"description=recent-window size; 0 means the server default\\, negative turns it off"`
	// Recall (recall) are the recall options; nil: the server's (recall off
	// unless configured); TopK 0: 5.
	Recall *recall.Options `json:"recall,omitempty" jsonschema:"description=recall options; absent means the server default (recall off unless the server config sets recall); topK 0 means the default (5)"`
	// RunID (runId) names the run; empty: a generated ULID.
	RunID string `json:"runId,omitempty" jsonschema:"description=names the run; left out means a generated ULID"`
	// TokenBudget (tokenBudget) bounds the estimated tokens (about 4 bytes
	// each) that recalled turns and observations add; 0: no budget; negative
	// is refused.
	TokenBudget int `json:"tokenBudget,omitempty" jsonschema:"minimum=0,description=estimated tokens (about 4 bytes each) that recalled turns and observations may add; 0 means no budget; negative is refused"`
	// ReplaceRun (replaceRun) lets a run id that has a memctx record be
	// reused; false: such an id is refused (journal.ErrRunExists).
	ReplaceRun bool `json:"replaceRun,omitempty"`
	// At (at) is when the question is asked: the query's relative dates
	// resolve against it in whole days of the resource's time zone; nil: the
	// server clock; the zero time is refused. Recorded as memctx.queryAt.
	At *time.Time `json:"at,omitempty" jsonschema:"description=when the question is asked (RFC 3339): the query's relative dates (yesterday; last week; two months ago) are resolved against it in whole days of the resource's time zone (UTC unless configured); defaults to the server clock (the zero time 0001-01-01T00:00:00Z is refused); recorded as memctx.queryAt"`
}

// ContextMessage is one message of a composed context, with provenance.
type ContextMessage struct {
	// Role (role) is "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content (content) is the message's text.
	Content string `json:"content"`
	// Name (name) is the speaker or tool name as the library composes it
	// (engine.OpenAIName: [A-Za-z0-9_-], at most 64 bytes, so it can be
	// passed on to OpenAI as it is); empty: none. The stored name is in
	// the thread's messages listing.
	Name string `json:"name,omitempty"`
	// ToolCalls (toolCalls) are an assistant message's tool calls, their
	// arguments as the model is to read them (ContextToolCall).
	ToolCalls []ContextToolCall `json:"toolCalls,omitempty"`
	// ToolCallID (toolCallId) is the call a tool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// ThreadID (threadId) is the thread the message is stored in.
	ThreadID string `json:"threadId"`
	// Seq (seq) is the message's position in its thread, from 1.
	Seq int64 `json:"seq"`
	// MessageID (messageId) is the stored message's id.
	MessageID string `json:"messageId"`
	// Reason (reason) is "hit", "range" or "repair" for a recalled turn;
	// empty for the recent window.
	Reason string `json:"reason,omitempty" jsonschema:"description=hit\\, range or repair for a recalled turn; absent for the recent window"`
}

// ContextToolCall is a tool call of a composed context's message, as the
// model is to read it.
type ContextToolCall struct {
	// ID (id) is the call's id; the tool message answering it names it as
	// toolCallId.
	ID string `json:"id"`
	// Name (name) is the function called.
	Name string `json:"name"`
	// Arguments (arguments) is OpenAI's function.arguments, a string, as
	// engine.OpenAIArguments renders it: an object's JSON text, its
	// bidirectional, tag and control characters written as JSON escapes
	// (the six characters \u202e, which a JSON reader of the text decodes);
	// a model's text that held no object rendered as message content is
	// ("[quoted: recalled …", \u202e).
	// The stored arguments are in the thread's messages listing.
	Arguments string `json:"arguments" jsonschema:"description=OpenAI's function.arguments: a string of the call's arguments as the model is to read them (an object's JSON text with bidirectional\\, tag and control characters as JSON escapes; a model's text that held no object rendered as message content is); pass it on as it is"`
}

// Context is the answer of POST /v1/context: the memory part of a prompt
// and its memctx record.
type Context struct {
	// RunID (runId) is the run's id, given or generated.
	RunID string `json:"runId"`
	// System (system) is the memory section of the system prompt.
	System string `json:"system"`
	// Messages (messages) are recalled turns, then the recent window, in
	// prompt order; never nil.
	Messages []ContextMessage `json:"messages"`
	// Tools (tools) are the tool definitions the context offers (working
	// memory updates unless read-only); never nil.
	Tools []openai.Tool `json:"tools"`
	// PromptHash (promptHash) is "sha256:<hex>" over System, Messages and
	// Tools.
	PromptHash string `json:"promptHash"`
	// MemCtx (memctx) is the run's provenance record; nil in a Replay's
	// Original and Counterfactual (Replay.MemCtx gives it once).
	MemCtx *journal.MemCtx `json:"memctx,omitempty" jsonschema:"description=the run's provenance record; absent in a replay's original and counterfactual (the replay gives it once)"`
	// Notice says what of the request was not used: a query given while
	// recall was off (RecallOffNotice). Absent when everything was.
	Notice string `json:"notice,omitempty" jsonschema:"description=what of the request was not used: a query given while recall was off was recorded in memctx.query but recalled nothing; absent when everything was used"`
}

// RecallOffNotice is Context.Notice for a load given query, whose record
// is rec: when recall
// was off (no recall options, and none configured), the query was only
// recorded, in the run's memctx record (where erasure looks for what the run
// saw: docs/cli.md, "quoted by its query"), and nothing was recalled; turnOn says
// how to turn recall on. "" when no query was given or recall ran.
func RecallOffNotice(query string, rec *journal.MemCtx, turnOn string) string {
	if query == "" || rec == nil || rec.Options.TopK != 0 {
		return ""
	}
	return "recall is off (no recall options, and the configuration sets none): the query was recorded in the run's memctx record but nothing was recalled; " + turnOn + " to recall"
}

// ContextOf is c in the API's JSON (camelCase names; the promptHash
// included). `mnemo context --json` prints it too.
func ContextOf(c *engine.Context) *Context { return toContext(c) }

// ReplayOf is r in the API's JSON, the memctx record given once.
// `mnemo replay --json` prints it too.
func ReplayOf(r *engine.Replay) Replay {
	orig, cf := toContext(r.Original), toContext(r.Counterfactual)
	orig.MemCtx, cf.MemCtx = nil, nil
	return Replay{RunID: r.RunID, MemCtx: r.Record, Original: orig, Counterfactual: cf,
		Removed: nonNil(r.Removed), RemovedObservations: nonNil(r.RemovedObservations), RemovedWorkingMemory: r.RemovedWorkingMemory}
}

// RunInfoOf is a run listing entry in the API's JSON (createdAt in RFC 3339).
func RunInfoOf(ri journal.RunInfo) RunInfo {
	return RunInfo{RunID: ri.RunID, ThreadID: ri.ThreadID, ResourceID: ri.ResourceID, CreatedAt: time.UnixMilli(ri.CreatedAt).UTC()}
}

func toContext(c *engine.Context) *Context {
	if c == nil {
		return nil
	}
	out := &Context{RunID: c.RunID, System: c.System, Messages: make([]ContextMessage, len(c.Messages)), Tools: c.Tools, PromptHash: c.PromptHash, MemCtx: c.MemCtx}
	for i, m := range c.Messages {
		out.Messages[i] = ContextMessage{Role: m.Role, Content: m.Content, Name: engine.OpenAIName(m.Name), ToolCalls: contextToolCalls(m.ToolCalls), ToolCallID: m.ToolCallID,
			ThreadID: m.ThreadID, Seq: m.Seq, MessageID: m.MessageID, Reason: m.Reason}
	}
	if out.Tools == nil {
		out.Tools = []openai.Tool{}
	}
	return out
}

// contextToolCalls gives a composed message's calls as ContextToolCalls;
// nil for none.
func contextToolCalls(calls []engine.ToolCall) []ContextToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ContextToolCall, len(calls))
	for i, c := range calls {
		out[i] = ContextToolCall{ID: c.ID, Name: c.Name, Arguments: engine.OpenAIArguments(c.Arguments)}
	}
	return out
}

// SearchBody is the body of POST /v1/search.
type SearchBody struct {
	// ResourceID (resourceId) is the resource searched; empty: ThreadID's
	// owner, or the token's only resource. Required when neither decides.
	ResourceID string `json:"resourceId,omitempty" jsonschema:"description=the resource searched; left out: the thread's (threadId) or else the token's only resource; required when neither decides (an operator token or one of several resources)"`
	// ThreadID (threadId) limits the search to one thread (scope "thread"
	// when Recall.Scope is empty); required with scope "thread", refused with
	// "resource".
	ThreadID string `json:"threadId,omitempty" jsonschema:"description=search this thread only (recall.scope thread when left out; refused with recall.scope resource); required with recall.scope thread"`
	// Query (query, required, non-empty) is what to look for.
	Query string `json:"query" jsonschema:"minLength=1"`
	// Recall (recall) are the search options; nil: defaults; TopK 0: 5.
	Recall *recall.Options `json:"recall,omitempty" jsonschema:"description=topK 0 means the default (5)"`
	// At (at) is when the question is asked: the query's relative dates
	// resolve against it in whole days of the resource's time zone; nil: the
	// server clock; the zero time is refused.
	At *time.Time `json:"at,omitempty" jsonschema:"description=when the question is asked (RFC 3339): the query's relative dates (yesterday; last week; two months ago) are resolved against it in whole days of the resource's time zone (UTC unless configured); defaults to the server clock (the zero time 0001-01-01T00:00:00Z is refused)"`
}

// ThreadList is the answer of GET /v1/threads.
type ThreadList struct {
	// Threads (threads) are this page's threads; never nil.
	Threads []engine.Thread `json:"threads"`
	// NextCursor, when present, is the cursor of the next page (GET
	// /v1/threads?cursor=): more threads follow. Absent on the last page.
	NextCursor string `json:"nextCursor,omitempty" jsonschema:"description=the cursor of the next page (?cursor=); absent on the last page"`
	// NextOffset (deprecated: page by nextCursor) is the offset of the
	// next page, on pages asked without a cursor; absent on the last page
	// and on pages asked by cursor.
	NextOffset int `json:"nextOffset,omitempty" jsonschema:"description=deprecated (use nextCursor): the offset of the next page; absent on the last page and on pages asked by cursor"`
}

// MessageList is the answer of GET /v1/threads/{thread}/messages.
type MessageList struct {
	// Messages (messages) are this page's messages, in seq order; never nil.
	Messages []engine.Message `json:"messages"`
	// NextFromSeq, when present, is the fromSeq of the next (newer) page.
	NextFromSeq int64 `json:"nextFromSeq,omitempty" jsonschema:"description=fromSeq of the next (newer) page; absent when the page reaches toSeq or the end"`
	// NextBeforeSeq, when present, is the beforeSeq of the next (older)
	// page of a request with beforeSeq.
	NextBeforeSeq int64 `json:"nextBeforeSeq,omitempty" jsonschema:"description=beforeSeq of the next (older) page of a request with beforeSeq; absent when no older message is within fromSeq"`
}

// RunInfo summarises one run in GET /v1/runs.
type RunInfo struct {
	// RunID (runId) is the run's id.
	RunID string `json:"runId"`
	// ThreadID (threadId) is the thread the run loaded.
	ThreadID string `json:"threadId"`
	// ResourceID (resourceId) is the thread's owner.
	ResourceID string `json:"resourceId"`
	// CreatedAt (createdAt) is when the run's memctx record was stored
	// (the end of its LoadContext; a replaced run's, its replacement's),
	// UTC, milliseconds: the time the listing is ordered and paged by. The
	// record's own createdAt (GET /v1/runs/{run}/memctx, mnemo memctx) is
	// when the LoadContext began, the time its prompt was built for: some
	// milliseconds earlier.
	CreatedAt time.Time `json:"createdAt"`
}

// RunList is the answer of GET /v1/runs.
type RunList struct {
	// Runs (runs) are this page's runs; never nil.
	Runs []RunInfo `json:"runs"`
	// NextCursor, when present, is the cursor of the next page (GET
	// /v1/runs?cursor=): more runs follow. Absent on the last page.
	NextCursor string `json:"nextCursor,omitempty" jsonschema:"description=the cursor of the next page (?cursor=); absent on the last page"`
}

// TurnRef names a stored turn by thread and seq.
type TurnRef struct {
	// ThreadID (threadId) is the turn's thread.
	ThreadID string `json:"threadId"`
	// Seq (seq, at least 1) is the turn's position in the thread.
	Seq int64 `json:"seq" jsonschema:"minimum=1"`
}

// ReplayBody is the body of POST /v1/runs/{run}/replay
// (engine.ReplayOptions); an empty object replays the run unchanged.
type ReplayBody struct {
	// WithoutRecalled (withoutRecalled) removes every recalled turn (hits,
	// range neighbours, repairs).
	WithoutRecalled bool `json:"withoutRecalled,omitempty"`
	// WithoutTurns (withoutTurns) removes chosen turns, recalled or recent,
	// each with its tool-call group.
	WithoutTurns []TurnRef `json:"withoutTurns,omitempty"`
	// WithoutObservations (withoutObservations) removes every observation
	// and reflection.
	WithoutObservations bool `json:"withoutObservations,omitempty"`
	// WithoutObservationIDs (withoutObservationIds) removes the
	// observations of these ids.
	WithoutObservationIDs []string `json:"withoutObservationIds,omitempty"`
	// WithoutWorkingMemory (withoutWorkingMemory) removes the working
	// memory from the system part.
	WithoutWorkingMemory bool `json:"withoutWorkingMemory,omitempty"`
}

// Replay is the answer of POST /v1/runs/{run}/replay.
type Replay struct {
	// RunID (runId) is the run replayed.
	RunID string `json:"runId"`
	// MemCtx (memctx) is the run's memctx record, as journaled.
	MemCtx *journal.MemCtx `json:"memctx"`
	// Original (original) is the run's context rebuilt from its record;
	// its PromptHash equals the record's.
	Original *Context `json:"original"`
	// Counterfactual (counterfactual) is Original without the removed
	// parts, with its own PromptHash; equal to Original without removals.
	Counterfactual *Context `json:"counterfactual"`
	// Removed (removed) are the turns left out of Counterfactual, tool-call
	// partners included; never nil.
	Removed []journal.Ref `json:"removed"`
	// RemovedObservations (removedObservations) are the observations left
	// out of Counterfactual; never nil.
	RemovedObservations []journal.ObservationRef `json:"removedObservations"`
	// RemovedWorkingMemory (removedWorkingMemory) reports that working
	// memory was left out.
	RemovedWorkingMemory bool `json:"removedWorkingMemory"`
}

// WorkingMemory is a working-memory state (GET and PUT
// …/working-memory).
type WorkingMemory struct {
	// Key (key) is "thread:<id>" or "resource:<id>".
	Key string `json:"key" jsonschema:"description=thread:<id> or resource:<id>"`
	// Mode (mode) is "schema" or "template": the mode the state was
	// written in, the configured one's or, for a state kept before the
	// working-memory configuration changed, the other (PUT content in the
	// configured mode replaces it; a patch of it is a 409).
	Mode string `json:"mode" jsonschema:"enum=schema,enum=template,description=the mode the state was written in: the configured one or for a state kept before the configuration changed the other"`
	// Content (content) is a compact JSON object (schema mode) or markdown
	// (template mode).
	Content string `json:"content" jsonschema:"description=compact JSON object (schema mode) or markdown (template mode)"`
	// Version (version) counts the writes; 0 when never written.
	Version int64 `json:"version" jsonschema:"description=0 when never written"`
	// UpdatedAt (updatedAt) is when it was last written, UTC; nil when never
	// written.
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	// Changed (changed) is set by PUT only: false when the update left the
	// content as it was.
	Changed *bool `json:"changed,omitempty" jsonschema:"description=PUT only: false when the update left the content as it was"`
}

// WorkingMemoryUpdate is the body of PUT …/working-memory: exactly one of
// content (the whole new state) and patch (a JSON Merge Patch, schema mode).
type WorkingMemoryUpdate struct {
	// Content (content) is the whole new state as sent (StateContent):
	// a JSON string, its text in either mode, or in schema mode a JSON
	// object, the state itself; nil (left out or null): Patch applies.
	Content StateContent `json:"content,omitempty"`
	// Patch (patch) is a JSON Merge Patch (RFC 7396), schema mode only: a
	// null deletes a field, lists are replaced whole.
	Patch map[string]any `json:"patch,omitempty"`
}

// ObservationList is the answer of the observations routes.
type ObservationList struct {
	// Observations (observations) are the observations and reflections;
	// never nil.
	Observations []Observation `json:"observations"`
}

// Observation is one observation or reflection with its source range.
type Observation struct {
	// ID (id) is the observation's id.
	ID string `json:"id"`
	// ThreadID (threadId) is the thread it was distilled from.
	ThreadID string `json:"threadId"`
	// ResourceID (resourceId) is the thread's owner.
	ResourceID string `json:"resourceId"`
	// FromSeq (fromSeq) is the first seq of the range it covers, inclusive.
	FromSeq int64 `json:"fromSeq"`
	// ToSeq (toSeq) is the last seq of the range, inclusive.
	ToSeq int64 `json:"toSeq"`
	// Level (level) is "observation" or "reflection".
	Level string `json:"level"`
	// Content (content) is its items, one "- " line each.
	Content string `json:"content"`
	// Sources (sources) are, for a reflection, the ids of the observations
	// it condensed; empty for an observation.
	Sources []string `json:"sources,omitempty"`
	// Untrusted (untrusted) is set when its sources hold untrusted content
	// (a tool result).
	Untrusted bool `json:"untrusted"`
	// FromTime (fromTime) is when the oldest turn it was distilled from was
	// said (a reflection: of its sources' turns), UTC; absent when unknown
	// (its turns are gone).
	FromTime *time.Time `json:"fromTime,omitempty"`
	// ToTime (toTime) is when the newest such turn was said, UTC; absent
	// when unknown.
	ToTime *time.Time `json:"toTime,omitempty"`
	// CreatedAt (createdAt) is when it was stored, UTC.
	CreatedAt time.Time `json:"createdAt"`
	// RetiredAt (retiredAt) is set when it was condensed into a reflection.
	RetiredAt *time.Time `json:"retiredAt,omitempty"`
	// InvalidatedAt (invalidatedAt) is set when an erasure removed one of
	// its sources.
	InvalidatedAt *time.Time `json:"invalidatedAt,omitempty"`
}

// EraseResult is the answer of the DELETE routes.
type EraseResult struct {
	// Messages (messages) are the ids of the messages erased.
	Messages []string `json:"messages"`
	// NotFound (notFound) are requested message ids that were not stored
	// (erasing again reports them here).
	NotFound []string `json:"notFound,omitempty"`
	// Threads (threads) are the threads deleted.
	Threads []string `json:"threads,omitempty"`
	// Invalidated (invalidated) are the observations and reflections
	// invalidated.
	Invalidated []string `json:"invalidated,omitempty"`
	// MemCtxScrubbed (memctxScrubbed) counts memctx records whose previews
	// were scrubbed.
	MemCtxScrubbed int `json:"memctxScrubbed"`
	// Runs counts the memctx records of deleted threads' runs removed.
	Runs int `json:"runs"`
	// WorkingMemory (workingMemory) counts working-memory states deleted
	// (current states and history versions).
	WorkingMemory int `json:"workingMemory"`
	// WorkingMemoryInvalidated counts working-memory versions removed
	// because the run that wrote them saw an erased turn.
	WorkingMemoryInvalidated int `json:"workingMemoryInvalidated"`
	// Embeddings (embeddings) counts stored embeddings deleted.
	Embeddings int `json:"embeddings"`
	// IndexesRebuilt says the purge cleared the database's indexes of the
	// erased ids (after a thread or resource erasure, on SQLite): it
	// rebuilt those whose pages held a piece of an erased thread or
	// resource id, so no index page keeps one (engine.EraseResult).
	IndexesRebuilt bool `json:"indexesRebuilt,omitempty"`
	// Vacuumed says why the purge rewrote the SQLite file with VACUUM
	// (engine.EraseResult.Vacuumed: "residue", "too-large" or
	// "texts-unknown"); absent when it did not.
	Vacuumed string `json:"vacuumed,omitempty" jsonschema:"enum=residue,enum=too-large,enum=texts-unknown"`
	// PurgeIncomplete says why the physical purge is unfinished (it is
	// retried); the erased data is unreadable already.
	PurgeIncomplete string `json:"purgeIncomplete,omitempty"`
	// KeptDamaged names the damaged database files that a salvage kept in
	// the data directory (mnemo.db.damaged-<UTC time>, then its kept -wal,
	// -shm and index directory, each its own entry), the copies of mnemo.db an open kept
	// before applying a damaged log (mnemo.db.before-wal-<UTC time>), and
	// the damaged write-ahead logs an open kept (mnemo.db-wal.damaged-<UTC
	// time>) with their -shm copies (engine.EraseResult.KeptDamaged): no
	// erasure reaches them.
	KeptDamaged []string `json:"keptDamaged,omitempty"`
	// Warning is set with KeptDamaged: those files may still hold what was
	// erased, until the operator deletes them.
	Warning string `json:"warning,omitempty"`
}

// Health is the answer of GET /healthz.
type Health struct {
	// Status (status) is "ok", or "degraded" when the server answers but
	// a part of it cannot (Reason says which and what to do).
	Status string `json:"status" jsonschema:"enum=ok,enum=degraded"`
	// Version (version) is Config.Version; "dev" when unset.
	Version string `json:"version"`
	// Reason (reason) says, with status "degraded", what does not work and
	// how to mend it: the stored working-memory configuration does not
	// build (StoredWorkingMemoryDetail; its routes answer 503
	// working-memory-unavailable). Absent with "ok".
	Reason string `json:"reason,omitempty"`
}

// AppendResult is the answer of POST /v1/threads/{thread}/messages.
type AppendResult struct {
	// ThreadID (threadId) is the thread appended to.
	ThreadID string `json:"threadId"`
	// ResourceID (resourceId) is the thread's owner.
	ResourceID string `json:"resourceId"`
	// Seqs (seqs) is the seq of each request message, in request order.
	Seqs []int64 `json:"seqs" jsonschema:"description=the seq of each request message\\, in request order"`
	// IDs (ids) is the id of each request message, generated ones included.
	IDs []string `json:"ids" jsonschema:"description=the id of each request message (generated ids included)"`
	// Stored (stored) counts the messages written now.
	Stored int `json:"stored"`
	// Duplicates (duplicates) counts the messages stored already (same id
	// and content).
	Duplicates int `json:"duplicates"`
	// Created (created) is true when this call created the thread.
	Created bool `json:"created" jsonschema:"description=the thread was created by this call"`
	// Evicted (evicted) names the threads the store's quota (retention's
	// quota) erased after this append to bring a resource or the store
	// back within its bounds, least recently active first; absent when
	// none was. Only threads of the token's resources are named: a
	// store-wide bound may evict another tenant's thread, and the answer
	// says nothing of it, not even a count (which would tell one tenant of
	// another's data); mnemo serve logs every eviction and counts it in
	// /metrics for the operator.
	Evicted []string `json:"evicted,omitempty" jsonschema:"description=the threads of the token's resources that the quota erased after this append (least recently active first); absent when none. Another tenant's evicted threads are never named"`
	// Unpaired (unpaired) names the request's tool messages whose
	// toolCallId answers no call of the thread (UnpairedResult), each
	// once; absent when none does, or none was checked
	// (UnpairedUnchecked).
	Unpaired []UnpairedResult `json:"unpaired,omitempty" jsonschema:"description=the request's tool messages whose toolCallId answers no call of the thread: stored\\, but every context leaves them out (memctx reason orphan-tool-result); absent when none"`
	// UnpairedUnchecked (unpairedUnchecked) counts the request's tool
	// messages not checked for Unpaired (engine.AppendResult's
	// UnpairedUnchecked): past engine.MaxPairLookups (16) lookups in the
	// stored thread, or whose call is not among the
	// engine.UnpairedWindow (64) messages before it. Such a message may answer
	// no call although Unpaired does not name it. Absent (0) when every
	// one was checked.
	UnpairedUnchecked int `json:"unpairedUnchecked,omitempty" jsonschema:"description=how many of the request's tool messages were not checked for unpaired (past 16 lookups in the stored thread; or whose call is not among the 64 messages before them): unpaired may leave out some that answer no call; absent when every one was checked"`
}

// UnpairedResult is a tool message of an append whose toolCallId answers
// no call of the thread (engine.UnpairedResult: the engine's pairing rule,
// the nearest earlier call with no other result for its id in between).
// It is stored, as a transcript's is, but every context leaves it out
// (memctx reason orphan-tool-result).
type UnpairedResult struct {
	// Index (index) is the message's index in the request's messages (the
	// first, when the request gives the same message twice).
	Index int `json:"index" jsonschema:"description=the tool message's index in the request's messages"`
	// ToolCallID (toolCallId) is the call id it gave.
	ToolCallID string `json:"toolCallId" jsonschema:"description=the toolCallId it gave"`
	// Detail (detail) says why, in words.
	Detail string `json:"detail" jsonschema:"description=why it answers no call"`
}
