package importer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/working"
)

// itemWorkingMemory is the "type" of a JSONL line that holds a working
// memory state, mnemo's own (mnemo export writes one after its thread's
// messages, or after its resource's threads):
//
//	{"type": "working_memory", "thread"?, "resource", "mode", "content"}
//
// With a thread it is the thread's state (scope thread), which must be
// the thread's resource's; without, the resource's (scope resource).
// mode is "schema" (content a JSON object, as text) or "template"
// (markdown). Import sets it as `mnemo wm set` does (--no-validate for
// schema mode: the object's shape is checked, no schema; --markdown for
// template mode): a state equal to the stored one writes no version.
const itemWorkingMemory = "working_memory"

// workingMemoryMembers are the members of a "working_memory" line.
var workingMemoryMembers = []string{"type", "thread", "resource", "mode", "content"}

// wmLine is a "working_memory" line read: the state's scope key, owner,
// mode and content.
type wmLine struct {
	key, resource string
	mode          working.Mode
	scope         working.Scope
	content       string
}

// WorkingMemoryOpener is what Import needs of an engine to store the
// "working_memory" lines of a JSONL file: *engine.Engine is one. An
// Appender without it skips those lines, each with a reason.
type WorkingMemoryOpener interface {
	OpenWorkingMemory(cfg working.Config) (*working.Memory, error)
}

var _ WorkingMemoryOpener = (*engine.Engine)(nil)

// workingMemory reads the record of a "working_memory" line.
func (rec *jsonlRecord) workingMemory() (*wmLine, error) {
	if rec.Resource == "" {
		return nil, errors.New(`"resource" is required in a "working_memory" line`)
	}
	l := &wmLine{resource: rec.Resource, mode: working.Mode(rec.Mode), scope: working.ScopeResource, key: working.ResourceKey(rec.Resource)}
	if rec.Thread != "" {
		l.scope, l.key = working.ScopeThread, working.ThreadKey(rec.Thread)
	}
	if l.mode != working.ModeSchema && l.mode != working.ModeTemplate {
		return nil, fmt.Errorf(`"mode" must be %q or %q, got %q`, working.ModeSchema, working.ModeTemplate, rec.Mode)
	}
	if len(rec.Content) == 0 || rec.Content[0] != '"' {
		return nil, fmt.Errorf(`"content" of a "working_memory" line must be a string, got %s`, valueKind(rec.Content))
	}
	if err := json.Unmarshal(rec.Content, &l.content); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return l, nil
}

// workingMemory stores the state of a "working_memory" line (at where),
// after the batch before it (its thread must be stored). A state the
// working memory refuses (its mode, owner, size or shape), of a thread
// not stored or on an Appender that stores none is the line's problem;
// another error stops the import.
func (jb *jsonlBatch) workingMemory(where string, l *wmLine) error {
	if err := jb.flush(); err != nil {
		return err
	}
	w := jb.w
	o, ok := w.e.(WorkingMemoryOpener)
	if !ok {
		return w.problem(where, errors.New("this engine stores no working memory"))
	}
	cfg := working.Config{Scope: l.scope, Mode: l.mode}
	if l.mode == working.ModeSchema {
		cfg.Schema = json.RawMessage(`{"type":"object"}`) // the shape only, as wm set --no-validate
	}
	mem, err := o.OpenWorkingMemory(cfg)
	if err != nil {
		return fmt.Errorf("importer: %s %s: %w", w.rep.File, where, err)
	}
	res, err := mem.Set(w.ctx, l.key, l.content, working.Origin{ResourceID: l.resource})
	if err == nil {
		// Counted as Export counts it: a resource whose only line is
		// its state was "0 resources" here and 1 in the export.
		w.resources[l.resource] = true
	}
	switch {
	case err == nil && res.Changed:
		w.rep.WorkingMemory++
	case err == nil:
		w.rep.WorkingMemorySame++
	case refusedState(err):
		return w.problem(where, err)
	default:
		w.rep.Error, w.rep.Stopped = err.Error(), where
		return err
	}
	return nil
}

// refusedState reports whether err is a working memory's refusal of a
// state (its own, not the database's): a line's problem.
func refusedState(err error) bool {
	for _, e := range []error{working.ErrInvalidKey, working.ErrOwnerMismatch, working.ErrModeMismatch, working.ErrInvalidPatch,
		working.ErrSchemaViolation, working.ErrTooLarge, engine.ErrThreadNotFound, engine.ErrInvalidInput} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
