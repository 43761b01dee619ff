package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/tokens"
)

// ChatFunc answers one chat completion request. Returning a *StatusError
// answers with that status, a *RawResponse sends its body verbatim, any other
// error answers 500. Missing response
// fields are filled in (see the package invariants).
type ChatFunc func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)

// Reply is one scripted answer to a chat request. The zero Reply answers 200
// with an empty assistant message.
type Reply struct {
	// Response is the body sent when Err and Raw are unset. Missing fields
	// are filled in.
	Response openai.ChatCompletionResponse
	// Err, when set, answers with an error body: its status for a
	// *StatusError, 500 otherwise.
	Err error
	// Raw, when non-nil (even empty), is sent verbatim as the body with
	// Status (0 means 200): use it for malformed or empty bodies.
	Raw []byte
	// Status is the HTTP status for Raw; 0 means 200.
	Status int
	// ContentType is the Content-Type header for Raw; "" means
	// application/json.
	ContentType string
	// Delay waits this long before answering, or until the client gives up
	// (its context is cancelled), whichever comes first.
	Delay time.Duration
	// Check, when set, is called with the request before answering; a
	// non-nil error is recorded as a violation and answered 400. Use it to
	// assert what the code under test sent at this turn.
	Check func(req openai.ChatCompletionRequest) error
}

// Text is a reply whose assistant message says content (finish reason
// "stop").
func Text(content string) Reply {
	return Reply{Response: openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
		Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content},
	}}}}
}

// Calls is a reply whose assistant message requests the given tool calls
// (finish reason "tool_calls").
func Calls(calls ...openai.ToolCall) Reply {
	return Reply{Response: openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
		Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: calls},
	}}}}
}

// ToolCall builds one function tool call. args is the arguments JSON text
// exactly as the model would send it (it need not be valid JSON: models
// sometimes send broken arguments, and tests should cover that).
func ToolCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// Error is a reply answering status with an OpenAI-style error body carrying
// message.
func Error(status int, message string) Reply {
	return Reply{Err: &StatusError{Status: status, Message: message}}
}

// Malformed is a reply answering 200 with body sent verbatim (for example
// `{"choices": [` ), which the client fails to decode.
func Malformed(body string) Reply { return Reply{Raw: []byte(body)} }

// Empty is a reply answering 200 with an empty body.
func Empty() Reply { return Reply{Raw: []byte{}} }

// WithDelay returns r answering after d (or when the client gives up).
func (r Reply) WithDelay(d time.Duration) Reply { r.Delay = d; return r }

// WithCheck returns r with check run on the request first (see Reply.Check).
func (r Reply) WithCheck(check func(openai.ChatCompletionRequest) error) Reply {
	r.Check = check
	return r
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, idx int, body []byte) {
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("chat body is not a chat completion request: %v", err))
		return
	}
	if err := ValidateChat(req); err != nil {
		s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s.mu.Lock()
	s.chatN++
	n := s.chatN
	var reply Reply
	var have bool
	if len(s.replies) > 0 {
		reply, have = s.replies[0], true
		s.replies = s.replies[1:]
	}
	fn := s.chatFn
	s.mu.Unlock()

	if !have && fn == nil {
		s.fail(w, idx, http.StatusInternalServerError, "server_error", fmt.Sprintf("chat request %d arrived but no reply is scripted (Enqueue or SetChat)", n))
		return
	}
	if have && reply.Check != nil {
		if err := reply.Check(req); err != nil {
			s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("chat request %d: check: %v", n, err))
			return
		}
	}
	if have && !waited(r, reply.Delay) {
		return
	}
	var resp openai.ChatCompletionResponse
	var err error
	switch {
	case have && reply.Raw != nil:
		status := reply.Status
		if status == 0 {
			status = http.StatusOK
		}
		ct := reply.ContentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = w.Write(reply.Raw)
		return
	case have && reply.Err != nil:
		writeError(w, reply.Err)
		return
	case have:
		resp = reply.Response
	default:
		resp, err = fn(req)
		if err != nil {
			writeError(w, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, s.complete(resp, req, n))
}

// complete fills in what a real API always sends.
func (s *Server) complete(resp openai.ChatCompletionResponse, req openai.ChatCompletionRequest, n int) openai.ChatCompletionResponse {
	if resp.ID == "" {
		resp.ID = fmt.Sprintf("chatcmpl-fake-%d", n)
	}
	if resp.Object == "" {
		resp.Object = "chat.completion"
	}
	if resp.Created == 0 {
		resp.Created = s.now().Unix()
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	choices := make([]openai.ChatCompletionChoice, len(resp.Choices))
	completion := 0
	for i, c := range resp.Choices {
		c.Index = i
		if c.Message.Role == "" {
			c.Message.Role = openai.ChatMessageRoleAssistant
		}
		calls := make([]openai.ToolCall, len(c.Message.ToolCalls))
		for j, tc := range c.Message.ToolCalls {
			if tc.Type == "" {
				tc.Type = openai.ToolTypeFunction
			}
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_fake_%d_%d_%d", n, i, j)
			}
			calls[j] = tc
			completion += estimateTokens(tc.Function.Name + tc.Function.Arguments)
		}
		if len(calls) > 0 {
			c.Message.ToolCalls = calls
		} else {
			c.Message.ToolCalls = nil
		}
		if c.FinishReason == "" {
			c.FinishReason = openai.FinishReasonStop
			if len(calls) > 0 {
				c.FinishReason = openai.FinishReasonToolCalls
			}
		}
		completion += estimateTokens(c.Message.Content)
		choices[i] = c
	}
	resp.Choices = choices
	if resp.Usage.TotalTokens == 0 {
		prompt := 0
		for _, m := range req.Messages {
			prompt += estimateTokens(m.Content)
		}
		resp.Usage = openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	}
	return resp
}

// estimateTokens is mnemo's one estimator (internal/tokens).
func estimateTokens(s string) int { return tokens.Text(s) }

// ValidateChat checks req against the rules the real chat completions API
// enforces and that mnemo must respect (DESIGN.md: "The output must always be
// accepted by an OpenAI-style API"):
//
//   - a model and at least one message;
//   - every role is system, developer, user, assistant or tool;
//   - a tool message answers a tool call of the nearest preceding assistant
//     message, each call at most once, with only tool messages in between;
//   - an assistant message with tool calls is followed by one tool message
//     per call before any other message;
//   - tool calls have an id and a function name; tool definitions have a
//     function name;
//   - no streaming (this fake does not stream).
//
// It returns the first broken rule, naming the message index.
func ValidateChat(req openai.ChatCompletionRequest) error {
	if req.Model == "" {
		return fmt.Errorf("model is empty")
	}
	if len(req.Messages) == 0 {
		return fmt.Errorf("messages is empty")
	}
	if req.Stream {
		return fmt.Errorf("stream=true is not supported by the fake")
	}
	for i, t := range req.Tools {
		if t.Type != openai.ToolTypeFunction || t.Function == nil || t.Function.Name == "" {
			return fmt.Errorf("tools[%d]: want a function tool with a name", i)
		}
	}
	var open map[string]bool // unanswered calls of the last assistant message
	openAt := -1
	for i, m := range req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleDeveloper, openai.ChatMessageRoleUser, openai.ChatMessageRoleAssistant:
			if len(open) > 0 {
				return fmt.Errorf("messages[%d] (%s): assistant message %d has tool calls without results: %v", i, m.Role, openAt, keys(open))
			}
			open, openAt = nil, -1
			if m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
				open, openAt = map[string]bool{}, i
				for j, tc := range m.ToolCalls {
					if tc.ID == "" || tc.Function.Name == "" {
						return fmt.Errorf("messages[%d].tool_calls[%d]: id and function name are required", i, j)
					}
					if open[tc.ID] {
						return fmt.Errorf("messages[%d].tool_calls[%d]: duplicate id %q", i, j, tc.ID)
					}
					open[tc.ID] = true
				}
			}
		case openai.ChatMessageRoleTool:
			if m.ToolCallID == "" {
				return fmt.Errorf("messages[%d] (tool): tool_call_id is empty", i)
			}
			if openAt < 0 {
				return fmt.Errorf("messages[%d] (tool): answers %q but does not follow an assistant message with tool calls", i, m.ToolCallID)
			}
			if !open[m.ToolCallID] {
				return fmt.Errorf("messages[%d] (tool): tool_call_id %q does not answer an open call of messages[%d]", i, m.ToolCallID, openAt)
			}
			delete(open, m.ToolCallID)
		default:
			return fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("assistant message %d has tool calls without results: %v", openAt, keys(open))
	}
	return nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
