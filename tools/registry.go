package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/journal"
)

// Call is one tool call as a Tool sees it.
type Call struct {
	RunID      string // the run handling the call
	ThreadID   string // the thread of the run (Owner.ThreadID)
	ResourceID string // the resource that owns the thread (Owner.ResourceID)
	ID         string // the tool call id the model gave
	Name       string // the function name
	Arguments  string // the arguments JSON text exactly as the model sent it
}

// Tool is one model-facing tool. Implementations must be safe for concurrent
// use.
type Tool interface {
	// Definition returns the tool as offered to the model. It must be a
	// function tool with a non-empty name, and return a fresh value on every
	// call (callers may modify it).
	Definition() openai.Tool
	// Run applies one call and returns the tool result text for the model.
	// Anything wrong with the call itself (bad arguments, a refused update)
	// is a result, not an error: the result is recorded and returned to the
	// model. An error means the call could not be handled now (storage,
	// context); nothing is recorded and the call may be handled again. Run
	// is called at most once per (RunID, ID) unless it returned an error.
	Run(ctx context.Context, call Call) (string, error)
}

// Owner is the thread, and the resource owning it, whose tool calls a
// registry handles. The engine fills both; either may be empty for a
// registry used outside the engine.
type Owner struct {
	// ThreadID is the thread whose tool calls the registry handles; may be empty.
	ThreadID string
	// ResourceID is the thread's resource; may be empty.
	ResourceID string
}

// Registry is the set of tools one context offers, bound to one owner. It
// is safe for concurrent use. The zero value is not usable: call
// NewRegistry.
type Registry struct {
	j     *journal.Journal
	owner Owner

	mu    sync.RWMutex
	tools []Tool // registration order: Definitions keeps it
	names []string
}

// NewRegistry returns an empty registry whose Handle applies the calls of
// owner's runs and records them in j.
func NewRegistry(j *journal.Journal, owner Owner) *Registry { return &Registry{j: j, owner: owner} }

// Register adds t. It returns ErrInvalidTool for a nil tool or a definition
// that is not a named function, and ErrDuplicateTool when the name is taken.
func (r *Registry) Register(t Tool) error {
	if t == nil {
		return fmt.Errorf("%w: nil", ErrInvalidTool)
	}
	def := t.Definition()
	if def.Type != openai.ToolTypeFunction || def.Function == nil || def.Function.Name == "" {
		return fmt.Errorf("%w: want a function tool with a name", ErrInvalidTool)
	}
	name := def.Function.Name
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.names, name) {
		return fmt.Errorf("%w: %s", ErrDuplicateTool, name)
	}
	r.tools = append(r.tools, t)
	r.names = append(r.names, name)
	return nil
}

// Names lists the registered tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.names)
}

// Definitions returns the tools to offer the model (openai
// ChatCompletionRequest.Tools), in registration order; nil when none is
// registered. The slice and its definitions are fresh copies.
func (r *Registry) Definitions() []openai.Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.tools) == 0 {
		return nil
	}
	out := make([]openai.Tool, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Definition()
	}
	return out
}

func (r *Registry) lookup(name string) (Tool, []string) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if i := slices.Index(r.names, name); i >= 0 {
		return r.tools[i], nil
	}
	return nil, slices.Clone(r.names)
}

// Handle applies one tool call of the model and returns the tool message
// that answers it (role tool, ToolCallID = call.ID, Name = the function
// name). The application goes through journal.Apply keyed by (runID, the
// registry's thread and resource, call.ID): handling the same call again —
// a resumed run, also after a restart — returns the recorded result and
// applies nothing; the same ids under another owner never see it. Handle
// does not check that the run belongs to the owner (the engine claims it
// first, journal.ClaimRun).
//
// A call whose id this run already applied for another call (another
// function or other arguments: some model servers number their calls
// call_0, call_1… afresh in every response) is answered with a result
// saying so ({"ok":false,…}) and is neither applied nor recorded: the
// recorded result of the earlier call is never passed off as this one's.
//
// Unknown tools and bad arguments produce a result saying what is wrong,
// never an error or a panic. Handle returns ErrNoCallID for a call without an
// id, and an error (recording nothing) when the tool could not run; a panic
// inside a tool is recovered and returned as an error.
func (r *Registry) Handle(ctx context.Context, runID string, call openai.ToolCall) (openai.ChatCompletionMessage, error) {
	if call.ID == "" {
		return openai.ChatCompletionMessage{}, fmt.Errorf("%w (function %q)", ErrNoCallID, call.Function.Name)
	}
	name := call.Function.Name
	key := journal.ToolKey{RunID: runID, ThreadID: r.owner.ThreadID, ResourceID: r.owner.ResourceID, CallID: call.ID}
	out, err := r.j.ApplyInput(ctx, key, inputDigest(call), func(ctx context.Context) (b []byte, err error) {
		defer func() {
			if p := recover(); p != nil {
				b, err = nil, fmt.Errorf("tools: %s panicked: %v", name, p)
			}
		}()
		t, known := r.lookup(name)
		if t == nil {
			return failure(fmt.Sprintf("unknown tool %q; the tools you can call are %v", name, known)), nil
		}
		res, err := t.Run(ctx, Call{RunID: runID, ThreadID: r.owner.ThreadID, ResourceID: r.owner.ResourceID,
			ID: call.ID, Name: name, Arguments: call.Function.Arguments})
		if err != nil {
			return nil, err
		}
		return []byte(res), nil
	})
	if errors.Is(err, journal.ErrCallReused) {
		// Another call under an id this run already applied: answered (the
		// model's call needs a result) but neither applied nor recorded.
		out, err = failure(fmt.Sprintf("tool call id %q was already used in this run for another call; this call was not applied (each call needs its own id, or each model turn its own run id)", call.ID)), nil
	}
	if err != nil {
		return openai.ChatCompletionMessage{}, fmt.Errorf("tools: handle %s call %s: %w", name, call.ID, err)
	}
	return openai.ChatCompletionMessage{
		Role:       openai.ChatMessageRoleTool,
		ToolCallID: call.ID,
		Name:       name,
		Content:    string(out),
	}, nil
}

// inputDigest identifies what a call asks: its function name and its
// arguments (compacted when they are JSON, so a replay that re-encodes them
// is the same call).
func inputDigest(call openai.ToolCall) string {
	args := []byte(call.Function.Arguments)
	var buf bytes.Buffer
	if json.Compact(&buf, args) == nil {
		args = buf.Bytes()
	}
	h := sha256.New()
	h.Write([]byte(call.Function.Name))
	h.Write([]byte{0})
	h.Write(args)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// result is the JSON tool result of the built-in tools.
type result struct {
	OK      bool   `json:"ok"`
	Version *int64 `json:"version,omitempty"`
	Changed *bool  `json:"changed,omitempty"`
	Error   string `json:"error,omitempty"`
}

// failure is the result for a call that was refused: {"ok":false,"error":…},
// msg as it is (jsonkey.Marshal): the model reads `unknown tool "<x>"`
// where json.Marshal wrote "\u003cx\u003e", text the model never sent. It
// is a tool message, which the provider's roles delimit (docs/prompt.md).
func failure(msg string) []byte {
	b, _ := jsonkey.Marshal(result{Error: msg})
	return b
}
