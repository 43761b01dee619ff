package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/server"
)

// checkArgs wraps a tool handler: arguments that name a key twice in one
// object are a tool error naming its path, "Invalid input: "threadId" is
// given twice …" (server.DuplicateKey, as the HTTP API refuses such a
// body: the SDK would keep the last silently), and an id argument given
// as "" is one naming it, "Invalid input: resourceId is empty: …"; h
// runs only when neither is.
func checkArgs[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		if req == nil || req.Params == nil {
			return h(ctx, req, in)
		}
		if path := server.DuplicateKey(req.Params.Arguments); path != "" {
			return nil, zero, fmt.Errorf("Invalid input: %q is given twice in one object; give each member once (field %s)", path, path)
		}
		// Left out has a meaning (the token's only resource, no thread
		// filter, a new run id), so "" is refused rather than read as left
		// out. The SDK has already refused arguments that are not an object.
		if name := server.EmptyIDMember(req.Params.Arguments); name != "" {
			return nil, zero, fmt.Errorf("Invalid input: %s is empty: give an id or leave it out (field %s)", name, name)
		}
		return h(ctx, req, in)
	}
}

// addTool adds the tool t with handler fn (wrapped by checkArgs, bounded
// by h.timeout, and by logFailed with h.log) to s, and records its input
// type in inputs for unknownArgs.
func addTool[In, Out any](s *mcp.Server, inputs map[string]reflect.Type, h *handlers, t *mcp.Tool, fn mcp.ToolHandlerFor[In, Out]) {
	inputs[t.Name] = reflect.TypeFor[In]()
	mcp.AddTool(s, t, logFailed(h.log, t.Name, bounded(h.timeout, checkArgs(asText(fn)))))
}

// asText gives a successful call's result its text content: out as
// compact JSON, "<", ">" and "&" as they are. The SDK writes out with
// json.Marshal when a result has none, so the model read "Tom & Jerry"
// as "Tom \u0026 Jerry"; its structured content is the same value.
func asText[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if err != nil || (res != nil && res.Content != nil) {
			return res, out, err
		}
		b, merr := jsonkey.Marshal(out)
		if merr != nil {
			return res, out, err // the SDK's own marshal reports it
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		return res, out, nil
	}
}

// bounded runs h with a context that ends after d (Options.ToolTimeout):
// a call that fails once that deadline passed, its client's context still
// live, is the *internalError "Timeout: …" whatever the handler's error
// said (a database that stopped answering, a slow erasure), with that
// error as the cause logFailed logs.
func bounded[In, Out any](d time.Duration, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		tctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		res, out, err := h(tctx, req, in)
		if err != nil && timedOut(ctx, tctx) {
			return nil, out, &internalError{text: timeoutText(d), cause: err}
		}
		return res, out, err
	}
}

// timedOut reports whether tctx, the bounded context made from client,
// reached its deadline while client had not ended.
func timedOut(client, tctx context.Context) bool {
	return client.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded)
}

// timeoutText is the answer of a call cut off after d, in the HTTP API's
// words (its 503 "timeout" problem).
func timeoutText(d time.Duration) string {
	return fmt.Sprintf("Timeout: the call did not finish within the server's tool timeout (%s); what it committed stays; try again later", d)
}

// unknownArgs is a receiving middleware: a tools/call whose arguments
// name a member the tool's input type (inputs, by tool name) does not
// take is a tool error naming its path and the member it most likely
// meant, in the HTTP API's words: "Invalid input: unknown field
// "messages[0].contnet" (did you mean "content"?) (field
// messages[0].contnet)". The SDK refused it too, after this runs, but as
// `validating /properties/messages/items: unexpected additional
// properties ["contnet"]`, naming no message. So is a value of another
// JSON type than its field's, "Invalid input: "topK" must be a JSON
// number, not a string (field topK)", which the SDK refused as
// `validating /properties/topK: type: 5 has type "string", want
// "integer"`, and a number the field cannot hold, "Invalid input: "topK"
// is out of range for an integer: 99999999999999999999 (field topK)"
// (server.WrongType), which the SDK's schema took as an integer and then
// failed as `json: cannot unmarshal number … into Go struct field
// mcpserver.SearchInput.topK of type int`. A null the schema refuses, a
// missing required argument and arguments that are not an object are
// refused too (argsFault). Before any of those, tooLong counts the
// arguments' arrays (memory_append's messages): one past its bound is
// refused then, its elements never walked (a million empty messages
// took 28 s to be refused as "messages[0].role is required").
func unknownArgs(inputs map[string]reflect.Type, tooLong func(tool string, args json.RawMessage) error) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if t, ok := inputs[r.Params.Name]; ok {
					err := tooLong(r.Params.Name, r.Params.Arguments)
					if err == nil {
						err = argsFault(r.Params.Arguments, t, r.Params.Name == ToolAppend)
					}
					if err != nil {
						res := &mcp.CallToolResult{}
						res.SetError(err)
						return res, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// argsFault is the tool error for arguments args that the tool of input
// type t refuses, in the HTTP API's words, or nil: arguments that are not
// an object ("Invalid input: the arguments must be a JSON object, not a
// string"; the SDK said `json: cannot unmarshal "\"x\"" into Go value of
// type map[string]interface {}`), an unknown member, a value of another
// JSON type, a null the schema refuses (`"topK" must be a JSON number,
// not null`; the SDK said `type: <invalid reflect.Value> has type "null"`)
// and a missing required member ("query is required"; the SDK said
// `required: missing properties: ["query"]`), each naming its field.
// Left out or null, the arguments are an empty object, as the SDK reads
// them.
//
// With appending set (memory_append), an unknown member that carries a
// tool turn (toolCallId, toolCalls, in their snake-case spellings too)
// says where such turns go (toolTurnsElsewhere), as a role "tool" does:
// the tool stores user and assistant turns only, and a client told only
// that toolCallId is unknown had no way forward (readme57).
func argsFault(args json.RawMessage, t reflect.Type, appending bool) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	if kind := jsonType(args); kind != "object" {
		return fmt.Errorf("Invalid input: the arguments must be a JSON object, not %s", kind)
	}
	for _, find := range []func([]byte, reflect.Type) (string, string){server.UnknownField, server.WrongType, server.NullOrMissing} {
		if path, detail := find(args, t); path != "" {
			if appending && toolTurnField(path) {
				detail += "; " + toolTurnsElsewhere
			}
			return fmt.Errorf("Invalid input: %s (field %s)", detail, path)
		}
	}
	return nil
}

// jsonType names the type of the JSON value v by its first byte, with
// its article ("a string", "an array"), or "object" (the SDK words a
// malformed one).
func jsonType(v json.RawMessage) string {
	switch v = bytes.TrimSpace(v); {
	case len(v) == 0 || v[0] == '{':
		return "object"
	case v[0] == '[':
		return "an array"
	case v[0] == '"':
		return "a string"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "a number"
}

// toolTurnsElsewhere says where the tool turns memory_append does not
// take are stored.
const toolTurnsElsewhere = "memory_append stores user and assistant turns only: store tool calls and tool results " +
	"(toolCalls, toolCallId) with the HTTP API's POST /v1/threads/{threadId}/messages or mnemo ingest"

// toolTurnField reports whether the argument path names a member of a
// message that only a tool turn carries: messages[N].toolCallId,
// .toolCalls, .tool_call_id or .tool_calls.
func toolTurnField(path string) bool {
	if !strings.HasPrefix(path, "messages[") {
		return false
	}
	_, member, ok := strings.Cut(path, "].")
	return ok && (member == "toolCallId" || member == "toolCalls" || member == "tool_call_id" || member == "tool_calls")
}
