package mcpserver

// Tool inputs and outputs. Field docs in `jsonschema` tags are the
// descriptions a model reads; JSON names are camelCase as in the HTTP API.

// AppendInput is memory_append's input.
type AppendInput struct {
	ThreadID   string          `json:"threadId" jsonschema:"the conversation to append to; it is created on first use"`
	ResourceID string          `json:"resourceId,omitempty" jsonschema:"the user or tenant owning the thread; may be left out when the thread exists or the token has one resource"`
	Messages   []AppendMessage `json:"messages" jsonschema:"the turns to store, oldest first"`
}

// AppendMessage is one turn to store.
type AppendMessage struct {
	Role    string `json:"role" jsonschema:"user or assistant (tool turns need tool-call ids; use the HTTP API)"`
	Content string `json:"content" jsonschema:"the text of the turn"`
	Name    string `json:"name,omitempty" jsonschema:"optional speaker name"`
	ID      string `json:"id,omitempty" jsonschema:"optional stable id; storing the same id and content again is a no-op"`
}

// AppendOutput is memory_append's result.
type AppendOutput struct {
	ThreadID   string   `json:"threadId"`
	ResourceID string   `json:"resourceId"`
	Seqs       []int64  `json:"seqs" jsonschema:"the position of each stored turn in the thread"`
	IDs        []string `json:"ids" jsonschema:"the id of each stored turn"`
	Stored     int      `json:"stored" jsonschema:"turns written now (the rest were already stored)"`
	Created    bool     `json:"created,omitempty" jsonschema:"the thread was started by this call"`
}

// MaxSearchTopK bounds memory_search's topK (its description says so): each
// hit comes with the turn before and after it, so 50 hits are up to 150
// turns in one tool result. More is refused naming topK.
const MaxSearchTopK = 50

// SearchInput is memory_search's input.
type SearchInput struct {
	Query      string `json:"query" jsonschema:"what to look for, in words"`
	ResourceID string `json:"resourceId,omitempty" jsonschema:"whose memory to search; may be left out when threadId is given or the token has one resource"`
	ThreadID   string `json:"threadId,omitempty" jsonschema:"search only this conversation"`
	TopK       int    `json:"topK,omitempty" jsonschema:"how many best matches (default 5, at most 50); each comes with its neighbouring turns"`
	At         string `json:"at,omitempty" jsonschema:"when the question is asked (RFC 3339, e.g. 2023-05-11T09:00:00Z): its relative dates (yesterday, last week, two months ago) are resolved against it; default: the server clock (the zero time 0001-01-01T00:00:00Z is refused)"`
}

// SearchHit is one turn found.
type SearchHit struct {
	ThreadID  string   `json:"threadId"`
	Seq       int64    `json:"seq"`
	MessageID string   `json:"messageId"`
	Role      string   `json:"role"`
	Content   string   `json:"content"`
	CreatedAt string   `json:"createdAt" jsonschema:"when the turn was said (RFC 3339)"`
	Reason    string   `json:"reason" jsonschema:"hit for a match, range for a neighbouring turn"`
	Score     *float64 `json:"score,omitempty" jsonschema:"fused relevance of a hit; higher is better"`
}

// SearchOutput is memory_search's result.
type SearchOutput struct {
	Hits      []SearchHit `json:"hits" jsonschema:"best match first, each followed by its neighbours"`
	Retrieval string      `json:"retrieval" jsonschema:"how the lexical and vector channels fared"`
}

// ContextInput is memory_context's input.
type ContextInput struct {
	ThreadID   string `json:"threadId" jsonschema:"the conversation whose next prompt is being built"`
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the thread's owner; needed only for a thread with no turns yet, when the token has several resources"`
	Query      string `json:"query,omitempty" jsonschema:"what recall should look for; default: the newest user turn; recorded in the run's provenance even when recall is off (no topK and none configured), and the notice then says nothing was recalled"`
	RecentN    int    `json:"recentN,omitempty" jsonschema:"how many recent turns to include (default: the server's)"`
	TopK       int    `json:"topK,omitempty" jsonschema:"how many older turns to recall (default 5; the server's recall settings apply otherwise)"`
	RunID      string `json:"runId,omitempty" jsonschema:"a name for this run; its provenance record is mnemo://runs/{runId}/memctx"`
	At         string `json:"at,omitempty" jsonschema:"when the question is asked (RFC 3339, e.g. 2023-05-11T09:00:00Z): the query's relative dates (yesterday, last week, two months ago) are resolved against it; default: the server clock (the zero time 0001-01-01T00:00:00Z is refused); recorded as memctx.queryAt"`
}

// ContextMessage is one message of a composed context.
type ContextMessage struct {
	Role     string `json:"role"`
	Content  string `json:"content"`
	ThreadID string `json:"threadId"`
	Seq      int64  `json:"seq"`
	Reason   string `json:"reason,omitempty" jsonschema:"hit, range or repair for a recalled turn; empty for the recent window"`
}

// ContextOutput is memory_context's result.
type ContextOutput struct {
	RunID      string           `json:"runId"`
	System     string           `json:"system" jsonschema:"the memory section for the system prompt (observations, working memory, how to read recalled turns)"`
	Messages   []ContextMessage `json:"messages" jsonschema:"recalled turns, then the recent window, in prompt order"`
	PromptHash string           `json:"promptHash"`
	Recalled   int              `json:"recalled" jsonschema:"how many older turns recall brought"`
	Dropped    int              `json:"dropped" jsonschema:"how many were left out (budget, pairing); the memctx resource says why"`
	Notice     string           `json:"notice,omitempty" jsonschema:"what of the request was not used: a query given while recall was off (no topK, and the server configures no recall) was recorded but recalled nothing; absent when everything was used"`
}

// WorkingMemoryInput names a working memory.
type WorkingMemoryInput struct {
	ThreadID   string `json:"threadId,omitempty" jsonschema:"the conversation whose working memory to use"`
	ResourceID string `json:"resourceId,omitempty" jsonschema:"the user's working memory (resource scope); may be left out with threadId or when the token has one resource; with threadId it must be the thread's"`
}

// WorkingMemoryUpdateInput is working_memory_update's input.
type WorkingMemoryUpdateInput struct {
	ThreadID   string         `json:"threadId,omitempty" jsonschema:"the conversation whose working memory to change"`
	ResourceID string         `json:"resourceId,omitempty" jsonschema:"the user's working memory (resource scope); with threadId it must be the thread's"`
	Content    *string        `json:"content,omitempty" jsonschema:"the whole new state: a JSON object as text in schema mode, a markdown document in template mode"`
	Patch      map[string]any `json:"patch,omitempty" jsonschema:"schema mode only: the fields to change (null deletes a field; lists are replaced whole)"`
}

// WorkingMemoryOutput is a working-memory state.
type WorkingMemoryOutput struct {
	Key       string `json:"key" jsonschema:"thread:<id> or resource:<id>"`
	Mode      string `json:"mode" jsonschema:"schema (a JSON object) or template (markdown)"`
	Content   string `json:"content"`
	Version   int64  `json:"version" jsonschema:"0 when never written"`
	UpdatedAt string `json:"updatedAt,omitempty" jsonschema:"when it was last written (RFC 3339); absent when never written"`
	Changed   *bool  `json:"changed,omitempty" jsonschema:"after an update: false when nothing changed"`
}

// DeleteInput is memory_delete's input: exactly one target.
type DeleteInput struct {
	MessageID  string `json:"messageId,omitempty" jsonschema:"erase this one turn"`
	ThreadID   string `json:"threadId,omitempty" jsonschema:"erase this whole conversation"`
	ResourceID string `json:"resourceId,omitempty" jsonschema:"erase everything of this user"`
}

// DeleteOutput is memory_delete's result.
type DeleteOutput struct {
	Messages    []string `json:"messages" jsonschema:"ids of the turns erased"`
	Threads     []string `json:"threads,omitempty"`
	Invalidated []string `json:"invalidated,omitempty" jsonschema:"observations invalidated because their sources were erased"`
	// PurgeIncomplete is server.EraseResult.PurgeIncomplete.
	PurgeIncomplete string `json:"purgeIncomplete,omitempty" jsonschema:"set when the erased turns are unreadable already but their physical purge did not finish (it is retried): why"`
	Warning         string `json:"warning,omitempty" jsonschema:"set when damaged database files kept by a salvage, or damaged write-ahead logs kept by an open, may still hold what was erased (no erasure reaches them): tell the user; the operator must delete them once no longer needed"`
}
