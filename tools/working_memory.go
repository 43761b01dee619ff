package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/working"
)

// UpdateWorkingMemoryName is the name of the working-memory tool.
const UpdateWorkingMemoryName = working.ToolName

// Descriptions of updateWorkingMemory, one per mode. They say how an update
// is applied, because the model cannot see the merge code.
const (
	UpdateWorkingMemorySchemaDescription = "Update your working memory (the JSON object shown in the system message). " +
		"Send only the fields that changed: they are merged into the current state and fields you leave out stay as they are. " +
		"Set a field to null to delete it. A list is replaced by the list you send, so send the whole list. " +
		"An update that does not fit the schema is refused with the reason."
	UpdateWorkingMemoryTemplateDescription = "Update your working memory (the markdown document shown in the system message). " +
		"To change part of it, send `search` (an exact passage that occurs exactly once in the current document) and `replace` (its new text). " +
		"To rewrite it, send `memory` with the whole new document. Prefer search/replace for small changes."
)

// TemplateArgs are the arguments of updateWorkingMemory in template mode:
// Memory alone, or Search with Replace. Its reflected schema is the tool's
// parameters.
type TemplateArgs struct {
	// Memory is the whole new document; not with Search.
	Memory *string `json:"memory,omitempty" jsonschema_description:"The whole new markdown document; replaces the current one. Do not combine with search/replace."`
	// Search is a passage occurring exactly once in the current document; with Replace.
	Search *string `json:"search,omitempty" jsonschema_description:"An exact passage of the current document that occurs exactly once."`
	// Replace replaces Search ("" deletes it).
	Replace *string `json:"replace,omitempty" jsonschema_description:"The text that replaces the search passage (may be empty to delete it)."`
}

// templateParams reflects TemplateArgs once: the engine builds the tool for
// every LoadContext, and the schema never changes.
var templateParams = sync.OnceValues(func() (json.RawMessage, error) {
	return working.SchemaFor(TemplateArgs{})
})

// wmTool is updateWorkingMemory bound to one memory and scope key.
type wmTool struct {
	mem    *working.Memory
	key    string
	params json.RawMessage
	desc   string
}

// UpdateWorkingMemory returns the updateWorkingMemory tool for the state
// under key (see working.Memory.Key). It returns ErrReadOnly for a read-only
// memory: such a memory is rendered but offers no tool.
func UpdateWorkingMemory(mem *working.Memory, key string) (Tool, error) {
	if mem.ReadOnly() {
		return nil, ErrReadOnly
	}
	if _, _, err := working.ParseKey(key); err != nil {
		return nil, err
	}
	t := &wmTool{mem: mem, key: key}
	if mem.Mode() == working.ModeSchema {
		t.params, t.desc = mem.UpdateSchema(), UpdateWorkingMemorySchemaDescription
	} else {
		p, err := templateParams()
		if err != nil {
			return nil, err
		}
		t.params, t.desc = p, UpdateWorkingMemoryTemplateDescription
	}
	return t, nil
}

// Definition implements Tool.
func (t *wmTool) Definition() openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name:        UpdateWorkingMemoryName,
		Description: t.desc,
		Parameters:  append(json.RawMessage(nil), t.params...),
	}}
}

// Run implements Tool: it applies the update with Origin (call.RunID,
// call.ID), so even without the journal the same call is not applied twice,
// on behalf of call.ResourceID (the state must belong to it, see
// working.Config.OwnerOf).
func (t *wmTool) Run(ctx context.Context, call Call) (string, error) {
	origin := working.Origin{RunID: call.RunID, ToolCallID: call.ID, ResourceID: call.ResourceID}
	// Not trimmed: a place an error names ("at byte N") is then the
	// arguments' own, as the model sent them (the decoders skip the
	// whitespace around a value).
	args := call.Arguments
	var (
		res working.Result
		err error
	)
	if t.mem.Mode() == working.ModeSchema {
		if strings.TrimSpace(args) == "" {
			args = "{}" // some models send no arguments for an empty call
		}
		// MergeOver: a state kept in template mode before the
		// configuration changed is replaced by the patch (the rendered
		// state told the model so), the model having no other way.
		res, err = t.mem.MergeOver(ctx, t.key, json.RawMessage(args), origin)
	} else {
		var a TemplateArgs
		if msg := decodeStrict(args, &a); msg != "" {
			return string(failure(msg + "; the working memory was not changed")), nil
		}
		switch {
		case a.Memory != nil && (a.Search != nil || a.Replace != nil):
			return string(failure("send either memory, or search and replace, not both; the working memory was not changed")), nil
		case a.Memory != nil:
			res, err = t.mem.Set(ctx, t.key, *a.Memory, origin)
		case a.Search != nil && a.Replace != nil:
			res, err = t.mem.Edit(ctx, t.key, *a.Search, *a.Replace, origin)
		case a.Search != nil:
			return string(failure("search needs replace (use an empty replace to delete the passage); the working memory was not changed")), nil
		default:
			return string(failure("send memory (the whole new document), or search and replace; the working memory was not changed")), nil
		}
	}
	if err != nil {
		if working.Refused(err) {
			return string(failure(modelMessage(err) + "; the working memory was not changed")), nil
		}
		return "", err
	}
	v, changed := res.State.Version, res.Changed
	out := result{OK: true, Version: &v}
	if !changed {
		out.Changed = &changed
	}
	b, _ := json.Marshal(out)
	return string(b), nil
}

// decodeStrict decodes one JSON object into v, refusing unknown fields and
// trailing data; it returns "" or a message for the model.
func decodeStrict(args string, v any) string {
	if strings.TrimSpace(args) == "" {
		return "the arguments are empty"
	}
	if path, _, ok := jsonkey.Repeated([]byte(args)); ok {
		return fmt.Sprintf("the arguments give %q twice in one object; give each member once", path)
	}
	src := strings.NewReader(args)
	d := json.NewDecoder(src)
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Sprintf("argument %q must be a %s, got %s", te.Field, te.Type, te.Value)
		}
		return "the arguments are not a valid JSON object: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	if err := jsonkey.End(d, src); err != nil {
		return "the arguments are not one JSON object: " + err.Error()
	}
	return ""
}

// modelMessage is err's text without the package prefixes meant for Go
// callers ("working: update violates the schema: at /city: …").
func modelMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "working: ")
}
