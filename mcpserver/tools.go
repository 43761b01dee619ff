package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// Tool names and descriptions, written for a model: what the tool does,
// when to use it, what it returns.
const (
	ToolAppend   = "memory_append"
	ToolSearch   = "memory_search"
	ToolContext  = "memory_context"
	ToolWMGet    = "working_memory_get"
	ToolWMUpdate = "working_memory_update"
	ToolDelete   = "memory_delete"

	descAppend   = "Store conversation turns in long-term memory, in order, at the end of a thread. Use it for every user and assistant turn as it happens, so later prompts can recall it. Returns each turn's position (seq) and id. Storing the same id with the same content again changes nothing."
	descSearch   = "Search a user's memory (all their threads, or one) for turns about something: hybrid keyword and semantic recall. Use it to look up what was said before, e.g. a preference, a name, a decision. Returns the best matches first, each with its text, role, thread, seq, date and score, followed by its neighbouring turns."
	descContext  = "Build the memory part of the next prompt for a thread: the recent turns, older turns recalled for the query, observations and working memory, and record what went in (a memctx record, readable as mnemo://runs/{runId}/memctx). Use it before answering in a long conversation. Returns the system section and the messages in prompt order."
	descWMGet    = "Read the working memory: the few durable facts kept about this conversation or user (a JSON object or a markdown document). Use it to check what is already known before asking or updating."
	descWMUpdate = "Change the working memory: send patch (the fields that changed; null deletes) for a JSON-object memory, or content (the whole new state). Use it when you learn a durable fact (name, preference, goal) or one changes. The update is checked against the configured schema; a refused update says why and changes nothing."
	descDelete   = "Erase memory permanently: one turn (messageId), a whole conversation (threadId) or everything of a user (resourceId), with everything derived from it. Use it only when the user asks to forget something. Refused unless the client may erase."
)

// handlers holds one principal's view of the engine and the log that gets
// the causes of internal errors (its lines name the token).
type handlers struct {
	t       server.Tenant
	log     *slog.Logger
	timeout time.Duration // Options.ToolTimeout, or its default
}

// mcpOrigin marks working-memory versions written through MCP.
var mcpOrigin = working.Origin{RunID: engine.RunIDMCP}

// addTools adds the six tools to s, and the middleware that names an
// unknown argument member (unknownArgs).
func (h *handlers) addTools(s *mcp.Server) {
	in := map[string]reflect.Type{}
	addTool(s, in, h, &mcp.Tool{Name: ToolAppend, Description: descAppend}, h.append)
	addTool(s, in, h, &mcp.Tool{Name: ToolSearch, Description: descSearch, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, h.search)
	addTool(s, in, h, &mcp.Tool{Name: ToolContext, Description: descContext}, h.context)
	addTool(s, in, h, &mcp.Tool{Name: ToolWMGet, Description: descWMGet, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, h.wmGet)
	addTool(s, in, h, &mcp.Tool{Name: ToolWMUpdate, Description: descWMUpdate, InputSchema: wmUpdateSchema()}, h.wmUpdate)
	destructive := true
	addTool(s, in, h, &mcp.Tool{Name: ToolDelete, Description: descDelete, Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}}, h.delete)
	s.AddReceivingMiddleware(unknownArgs(in, h.tooLong))
}

// tooLong is the tool error for arguments of tool whose arrays pass
// their bounds, counted before anything decodes them (server.TooLong):
// memory_append's messages past limits.maxMessagesPerAppend, "Invalid
// input: at most 1000 messages per append, got 1000000 (field
// messages)"; nil when none does.
func (h *handlers) tooLong(tool string, args json.RawMessage) error {
	if tool != ToolAppend {
		return nil
	}
	l := h.t.Engine.Limits()
	if err := server.TooLong(args, l, map[string]int{"messages": l.MaxMessagesPerAppend}); err != nil {
		return h.problem(err, pathFields)
	}
	return nil
}

// pathFields maps the fields of the HTTP routes' path ids (which the
// server's errors name) to the tools' arguments that carry them.
var pathFields = map[string]string{"thread": "threadId", "resource": "resourceId", "run": "runId", "message": "messageId"}

// fail turns an error into a tool error whose text a model can act on and
// that names only what the caller named; a lost database connection is
// "Service unavailable", as the HTTP routes answer it. An answer of status
// 500 or more is an *internalError, whose cause checkArgs logs.
func (h *handlers) fail(err error) error {
	text := h.problem(err, pathFields)
	if h.t.Describe(err).Status >= http.StatusInternalServerError {
		return &internalError{text: text.Error(), cause: err}
	}
	return text
}

// failRead is fail for a resource read, a JSON-RPC error whose code says
// what failed: -32602 (invalid params) for an invalid id or URI parameter
// (HTTP's 400), -32603 (internal error) for anything else; a plain error
// went out with code 0, which JSON-RPC does not define. A URI template's
// variables ({thread}, {run}) are named as the HTTP path's, so an invalid
// id's field is kept.
//
// The cause of an answer of status 500 or more is logged with uri (at Info
// as "mcp resource read cancelled" when the client cancelled the read).
func (h *handlers) failRead(ctx context.Context, uri string, err error) error {
	code := int64(jsonrpc.CodeInternalError)
	switch status := h.t.Describe(err).Status; {
	case status == http.StatusBadRequest:
		code = jsonrpc.CodeInvalidParams
	case status >= http.StatusInternalServerError && cancelled(ctx, err):
		h.log.LogAttrs(ctx, slog.LevelInfo, "mcp resource read cancelled", slog.String("uri", uri))
	case status >= http.StatusInternalServerError:
		h.log.LogAttrs(ctx, slog.LevelError, "mcp resource read failed", slog.String("uri", uri), slog.String("err", err.Error()))
	}
	return &jsonrpc.Error{Code: code, Message: h.problem(err, nil).Error()}
}

// problem is the error text of fail and failRead; fields renames an HTTP
// path's field to the name the caller gave the id under.
func (h *handlers) problem(err error, fields map[string]string) error {
	p := h.t.Describe(err)
	if p.Field == "recall.topK" { // the tools take topK as an argument of their own
		p.Field, p.Detail = "topK", strings.ReplaceAll(p.Detail, "recall.topK", "topK")
		// An answer too large: the tools fix messageRange (one turn a side).
		p.Detail = strings.ReplaceAll(p.Detail, " or recall.messageRange", "")
	}
	if arg, ok := fields[p.Field]; ok { // an HTTP path's name; the tools take the id as an argument
		if rest, ok := strings.CutPrefix(p.Detail, p.Field+" "); ok { // "resource must be …"
			p.Detail = arg + " " + rest
		}
		p.Field = arg
	}
	if p.Field != "" {
		return fmt.Errorf("%s: %s (field %s)", p.Title, p.Detail, p.Field)
	}
	return fmt.Errorf("%s: %s", p.Title, p.Detail)
}

func (h *handlers) append(ctx context.Context, _ *mcp.CallToolRequest, in AppendInput) (*mcp.CallToolResult, AppendOutput, error) {
	b := server.AppendBody{ResourceID: in.ResourceID} // Append resolves a resource left out
	for i, m := range in.Messages {
		if err := appendRole(i, m.Role); err != nil {
			return nil, AppendOutput{}, err
		}
		b.Messages = append(b.Messages, server.MessageIn{ID: m.ID, Role: m.Role, Content: m.Content, Name: m.Name})
	}
	res, err := h.t.Append(ctx, in.ThreadID, b)
	if err != nil {
		return nil, AppendOutput{}, h.fail(err)
	}
	// No unpaired (server.AppendResult.Unpaired): the tool takes no tool
	// turns (appendRole, toolTurnsElsewhere), so none of its messages can
	// be a result answering no call.
	return nil, AppendOutput{ThreadID: res.ThreadID, ResourceID: res.ResourceID, Seqs: res.Seqs, IDs: res.IDs, Stored: res.Stored, Created: res.Created, Evicted: res.Evicted}, nil
}

// appendRole refuses role, that of message i of memory_append, unless it
// is one the tool takes, user or assistant, in the engine's words but
// naming those two: the engine says "use user, assistant or tool", and a
// tool turn is refused here (cli58). A tool turn is told where tool turns
// go: the engine would say it needs a toolCallId, which this tool refuses
// as an unknown field (readme57).
func appendRole(i int, role string) error {
	switch role {
	case "user", "assistant":
		return nil
	case "tool":
		return fmt.Errorf("Invalid input: messages[%d].role \"tool\": %s (field messages[%d].role)", i, toolTurnsElsewhere, i)
	case "system":
		return fmt.Errorf("Invalid input: invalid messages[%d].role: \"system\" is not stored: system prompts belong to the caller; use user or assistant (field messages[%d].role)", i, i)
	}
	if len(role) > 32 { // as the engine clips it, at a character boundary
		n := 32
		for n > 0 && !utf8.RuneStart(role[n]) {
			n--
		}
		role = role[:n] + "…"
	}
	return fmt.Errorf("Invalid input: invalid messages[%d].role: must be user or assistant, got %q (field messages[%d].role)", i, role, i)
}

func (h *handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	if in.TopK < 0 || in.TopK > MaxSearchTopK {
		// Worded as recall's bound of the API's recall.topK and of
		// memory_context's topK ("must be within [0, 1000]").
		return nil, SearchOutput{}, fmt.Errorf("Invalid input: topK must be within [0, %d], got %d (field topK)", MaxSearchTopK, in.TopK)
	}
	at, err := server.ParseTime("at", in.At)
	if err != nil {
		return nil, SearchOutput{}, h.fail(err)
	}
	b := server.SearchBody{ResourceID: in.ResourceID, ThreadID: in.ThreadID, Query: in.Query, At: at} // Search resolves a resource left out
	// Every hit comes with the turn before and after it, as the tool's
	// description says (before, only when topK or threadId was given).
	b.Recall = &recall.Options{TopK: in.TopK, MessageRange: recall.Range{Before: 1, After: 1}}
	if in.ThreadID != "" {
		b.Recall.Scope = recall.ScopeThread
	}
	res, err := h.t.Search(ctx, b)
	if err != nil {
		return nil, SearchOutput{}, h.fail(err)
	}
	out := SearchOutput{Hits: []SearchHit{}, Retrieval: fmt.Sprintf("lexical %s, vector %s", res.Retrieval.Lexical, res.Retrieval.Vector)}
	for _, hit := range res.Hits {
		out.Hits = append(out.Hits, searchHit(hit))
	}
	return nil, out, nil
}

func (h *handlers) context(ctx context.Context, _ *mcp.CallToolRequest, in ContextInput) (*mcp.CallToolResult, ContextOutput, error) {
	at, err := server.ParseTime("at", in.At)
	if err != nil {
		return nil, ContextOutput{}, h.fail(err)
	}
	b := server.ContextBody{ThreadID: in.ThreadID, ResourceID: in.ResourceID, Query: in.Query, RecentN: in.RecentN, RunID: in.RunID, At: at}
	if in.TopK != 0 || !h.t.Engine.DefaultRecall() {
		// A model calls memory_context for recalled older turns (the
		// instructions say so) and rarely gives topK: with none, the
		// server's configured recall applies, or recall.DefaultTopK.
		b.Recall = &recall.Options{TopK: in.TopK, MessageRange: recall.Range{Before: 1, After: 1}}
	}
	c, err := h.t.LoadContext(ctx, b)
	if err != nil {
		return nil, ContextOutput{}, h.fail(err)
	}
	out := ContextOutput{RunID: c.RunID, System: c.System, PromptHash: c.PromptHash, Messages: []ContextMessage{}}
	for _, m := range c.Messages {
		// Content and arguments come rendered; a call's id and name and
		// the id a tool turn answers are rendered here as memory_search
		// renders them (the same on both sides, so calls and answers
		// still pair).
		out.Messages = append(out.Messages, ContextMessage{Role: m.Role, Content: m.Content, Name: m.Name,
			ToolCalls: contextToolCalls(m.ToolCalls), ToolCallID: render.Message(m.ToolCallID), ThreadID: m.ThreadID, Seq: m.Seq, Reason: m.Reason})
	}
	if c.MemCtx != nil {
		out.Recalled, out.Dropped = len(c.MemCtx.Recalled), c.MemCtx.DroppedCount
	}
	return nil, out, nil
}

func (h *handlers) wmGet(ctx context.Context, _ *mcp.CallToolRequest, in WorkingMemoryInput) (*mcp.CallToolResult, WorkingMemoryOutput, error) {
	res, err := h.wmResource(ctx, in.ThreadID, in.ResourceID)
	if err != nil {
		return nil, WorkingMemoryOutput{}, h.fail(err)
	}
	w, err := h.t.WorkingMemory(ctx, in.ThreadID, res)
	if err != nil {
		return nil, WorkingMemoryOutput{}, h.fail(err)
	}
	return nil, wmOutput(w), nil
}

func (h *handlers) wmUpdate(ctx context.Context, req *mcp.CallToolRequest, in WorkingMemoryUpdateInput) (*mcp.CallToolResult, WorkingMemoryOutput, error) {
	if in.ResourceID != "" {
		// The rule of what is stored under an id, before the token's
		// resources: "." or ".." is a 400 whatever the token, as an
		// append's resourceId is.
		if err := server.NewID("resourceId", in.ResourceID); err != nil {
			return nil, WorkingMemoryOutput{}, h.fail(err)
		}
	}
	res, err := h.wmResource(ctx, in.ThreadID, in.ResourceID)
	if err != nil {
		return nil, WorkingMemoryOutput{}, h.fail(err)
	}
	w, err := h.t.UpdateWorkingMemory(ctx, in.ThreadID, res, sentUpdate(req, in), mcpOrigin)
	if err != nil {
		return nil, WorkingMemoryOutput{}, h.fail(err)
	}
	return nil, wmOutput(w), nil
}

// wmUpdateSchema is working_memory_update's input schema, the one the SDK
// infers from WorkingMemoryUpdateInput but for content: a string, an
// object (schema mode) or null (left out), where the inferred one would
// be an array of bytes (server.StateContent's Go shape).
func wmUpdateSchema() *jsonschema.Schema {
	content := &jsonschema.Schema{Types: []string{"string", "object", "null"}}
	s, err := jsonschema.For[WorkingMemoryUpdateInput](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[server.StateContent](): content},
	})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: working_memory_update's input schema: %v", err)) // a Go type the package defines
	}
	return s
}

// sentUpdate is working_memory_update's content and patch as the client
// sent them in req's arguments, numbers as written (as the HTTP API keeps
// them): the SDK decoded the arguments into a map and encoded them again
// to validate them, and then into in, so an object's or a patch's
// 1234567890123456789 reached in as the float64 1234567890123456800. in's
// own are used when the arguments cannot be read again.
func sentUpdate(req *mcp.CallToolRequest, in WorkingMemoryUpdateInput) server.WorkingMemoryUpdate {
	b := server.WorkingMemoryUpdate{Content: in.Content, Patch: in.Patch}
	if req == nil || req.Params == nil {
		return b
	}
	var args struct {
		Content server.StateContent `json:"content"`
		Patch   map[string]any      `json:"patch"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
	dec.UseNumber()
	if dec.Decode(&args) != nil {
		return b
	}
	if b.Content != nil && args.Content != nil {
		b.Content = args.Content
	}
	if b.Patch != nil && args.Patch != nil {
		b.Patch = args.Patch
	}
	return b
}

// wmOutput is a working-memory state as the tools return it: the API's
// WorkingMemory, updatedAt in RFC 3339 (absent when never written), its
// content as a model is to read it: a schema memory's JSON text with
// marker-shaped text quoted and bidirectional, tag and control
// characters as JSON escapes (render.ToolJSON: the same value but for
// the quoting), a template memory's markdown as message content is
// (render.Message: "\u202e"). Raw, a model read a stored "[recalled ·
// thread t1 …" as mnemo's marker and a U+202E drew the text otherwise for
// whoever reviews it, as in memory_search's hits (mark58).
func wmOutput(w *server.WorkingMemory) WorkingMemoryOutput {
	content := render.Message(w.Content)
	if w.Mode == string(working.ModeSchema) {
		content = render.ToolJSON(w.Content)
	}
	out := WorkingMemoryOutput{Key: w.Key, Mode: w.Mode, Content: content, Version: w.Version, Changed: w.Changed}
	if w.UpdatedAt != nil {
		out.UpdatedAt = w.UpdatedAt.UTC().Format(time.RFC3339)
	}
	return out
}

// wmResource is the resource of a resource-route working memory: empty
// with a thread (the thread's own resource is used, and a resourceID given
// too must be it: server.ThreadConflict, as memory_append and
// memory_context check), else resourceID or the client's only resource
// (server.Tenant.RequireResource: an error naming resourceId when neither
// is).
func (h *handlers) wmResource(ctx context.Context, threadID, resourceID string) (string, error) {
	if threadID == "" {
		return h.t.RequireResource(ctx, "threadId", "", resourceID)
	}
	if resourceID != "" {
		if err := h.t.Resource("resourceId", resourceID); err != nil {
			return "", err
		}
		th, err := h.t.ThreadIn(ctx, "threadId", threadID)
		if err != nil {
			return "", err
		}
		if th.ResourceID != resourceID {
			return "", server.ThreadConflict("resourceId", threadID)
		}
	}
	return "", nil
}

func (h *handlers) delete(ctx context.Context, _ *mcp.CallToolRequest, in DeleteInput) (*mcp.CallToolResult, DeleteOutput, error) {
	kind, id, n := "", "", 0
	for _, c := range []struct{ kind, id string }{{"message", in.MessageID}, {"thread", in.ThreadID}, {"resource", in.ResourceID}} {
		if c.id != "" {
			kind, id, n = c.kind, c.id, n+1
		}
	}
	if n != 1 {
		return nil, DeleteOutput{}, errors.New("Invalid input: give exactly one of messageId, threadId and resourceId")
	}
	res, err := h.t.Erase(ctx, kind, id)
	if err != nil {
		return nil, DeleteOutput{}, h.fail(err)
	}
	return nil, deleteOutput(res), nil
}

// deleteOutput is memory_delete's result of an erasure: what the DELETE
// routes answer that a model can act on, the incomplete purge included.
func deleteOutput(res *server.EraseResult) DeleteOutput {
	return DeleteOutput{Messages: res.Messages, Threads: res.Threads, Invalidated: res.Invalidated, Runs: res.Runs,
		PurgeIncomplete: res.PurgeIncomplete, Warning: res.Warning}
}
