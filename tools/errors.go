package tools

import "errors"

// ErrDuplicateTool is returned by Registry.Register when a tool of the same
// name is already registered.
var ErrDuplicateTool = errors.New("tools: duplicate tool name")

// ErrInvalidTool is returned by Registry.Register for a nil tool or a
// definition that is not a named function tool.
var ErrInvalidTool = errors.New("tools: invalid tool")

// ErrNoCallID is returned by Registry.Handle for a tool call without an id:
// without one the call cannot be applied durably (nor answered, since the
// tool message must name the call).
var ErrNoCallID = errors.New("tools: tool call has no id")

// ErrReadOnly is returned by UpdateWorkingMemory for a read-only working
// memory, which offers the model no tool.
var ErrReadOnly = errors.New("tools: working memory is read-only")
