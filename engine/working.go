package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// ErrNoWorkingMemory is returned by WorkingMemory and HandleToolCall when
// Config.WorkingMemory is nil and the directory stores no working-memory
// configuration.
var ErrNoWorkingMemory = errors.New("engine: working memory is not configured")

// ErrStoredWorkingMemory is returned by WorkingMemory, LoadContext,
// Replay and HandleToolCall, wrapped beside working.ErrInvalidConfig or
// working.ErrInvalidSchema, when Config.WorkingMemory is nil and the
// working-memory configuration stored in the database (by an earlier Open,
// perhaps of another build of mnemo) does not build here: a mode or scope
// this build does not know, a schema it cannot use, a row that does not
// parse. Open opens all the same and logs it as a warning (Config.Logger):
// what does not render working memory (Messages, Search, GetThread,
// export, Check) works. An Open with Config.WorkingMemory set (mnemo serve
// --config FILE with a "workingMemory" member) replaces the stored one.
var ErrStoredWorkingMemory = errors.New("the working-memory configuration stored in the database does not build")

// workingState is the engine's working memory, built once at Open from
// Config.WorkingMemory or the stored configuration (compiling a schema
// costs about 0.5 ms, so it is not done per LoadContext): mem, or err
// saying why there is none. Both are set before Open returns and never
// change.
type workingState struct {
	mem *working.Memory
	err error

	checked atomic.Pointer[func()] // for the tests: called after a run's in-flight check (SetAfterRunCheck)
}

// WorkingMemory returns the working memory of the data directory, over the
// engine's database: the one Config.WorkingMemory configures (Open stores
// it with the states, replacing the stored one) or, when that is nil, the
// one stored by the last engine that configured it, so that every reader
// of a directory (an application with its Go schema, mnemo context, mnemo
// wm, mnemo serve) renders and validates working memory alike; Open reads
// and builds it. It returns ErrNoWorkingMemory when none is configured or
// stored, ErrStoredWorkingMemory (with working.ErrInvalidConfig or
// working.ErrInvalidSchema) when the stored one does not build, and
// ErrClosed once closed. The Memory reads and writes the engine's
// database directly; after Close its methods that read or write it return
// ErrClosed (working.Config.Closed), as the engine's do.
func (e *Engine) WorkingMemory() (*working.Memory, error) {
	if err := e.checkClosed(); err != nil {
		return nil, err
	}
	return e.wm.mem, e.wm.err
}

// openWorkingMemory builds the engine's working memory (Open calls it):
// from Config.WorkingMemory, which Open has checked, storing it with the
// states; else from the stored configuration. One stored that does not
// build is not Open's error, so that a damaged or newer configuration does
// not make the messages unreadable: it is logged as a warning and kept for
// WorkingMemory to return. A database error is Open's.
func (e *Engine) openWorkingMemory(ctx context.Context) error {
	if c := e.cfg.WorkingMemory; c != nil {
		mem, err := e.buildWorkingMemory(*c)
		if err != nil {
			return fmt.Errorf("engine: working memory: %w", err)
		}
		if err := e.damagedFile(); err != nil {
			// Not stored into a file found damaged (as no state is), and
			// not Open's error: reads must go on. The open after a
			// restore or a salvage stores it.
			e.log.WarnContext(ctx, "engine: the working-memory configuration was not stored: the database file was found damaged", "err", err)
		} else if err := mem.SaveConfig(ctx, store.Bound(e.db)); err != nil { // on Postgres, checked as every write (store.WriteCheck)
			return fmt.Errorf("engine: %w", err)
		}
		e.wm.mem = mem
		return nil
	}
	stored, ok, err := working.LoadConfig(ctx, e.db)
	switch {
	case err != nil && !errors.Is(err, working.ErrInvalidConfig):
		return fmt.Errorf("engine: working memory: %w", err)
	case err == nil && !ok:
		e.wm.err = ErrNoWorkingMemory
		return nil
	case err == nil:
		e.wm.mem, err = e.buildWorkingMemory(stored)
	}
	if err != nil {
		e.wm.err = storedWorkingError(stored, err)
		e.log.WarnContext(ctx, "engine: working memory is unavailable until an open with a working-memory configuration replaces the stored one", "err", e.wm.err)
	}
	return nil
}

// buildWorkingMemory is working.New over the engine's database with the
// engine's clock (unless cfg has one), owners, redactor, closed check,
// full-disk record (Wrote) and damaged-file refusal (Writable).
func (e *Engine) buildWorkingMemory(cfg working.Config) (*working.Memory, error) {
	if cfg.Now == nil {
		cfg.Now = e.now
	}
	cfg.OwnerOf = wmOwnerOf
	cfg.Redact = e.redactWorking
	cfg.Closed = e.checkClosed
	cfg.Wrote = e.wroteWorking   // disk_space.go
	cfg.Writable = e.damagedFile // stats.go: no new state into a file found damaged
	cfg.RunCheck = func(ctx context.Context, q working.Querier, runID string) error {
		err := journal.CheckRunContext(ctx, q, runID)
		if f := e.wm.checked.Load(); f != nil {
			(*f)()
		}
		return err
	}
	return working.New(e.db, cfg)
}

// storedWorkingError is ErrStoredWorkingMemory for the stored cfg that
// failed with err, naming its mode and scope (none when it did not parse)
// and how to replace it.
func storedWorkingError(cfg working.Config, err error) error {
	what := ""
	if cfg.Mode != "" || cfg.Scope != "" {
		what = fmt.Sprintf(" (mode %q, scope %q)", cfg.Mode, cfg.Scope)
	}
	return fmt.Errorf("engine: %w%s: %w; an open with Config.WorkingMemory set "+
		"(mnemo serve --config FILE with a \"workingMemory\" member) replaces it", ErrStoredWorkingMemory, what, err)
}

// OpenWorkingMemory returns a working memory over the engine's database
// with cfg instead of Config.WorkingMemory, for tools that inspect or set
// states of any mode (mnemo wm). cfg.Now defaults to the engine clock.
// States stay bound to their owners as with WorkingMemory: cfg.OwnerOf is
// replaced, so writing the state of a thread that does not exist returns
// ErrThreadNotFound and stores nothing. cfg.Redact is always
// the engine's redactor (Config.Redactor), so a state set through it is
// redacted like every other stored text, and cfg.Closed the engine's: as
// WorkingMemory's, the Memory answers ErrClosed after Close.
func (e *Engine) OpenWorkingMemory(cfg working.Config) (*working.Memory, error) {
	if err := e.checkClosed(); err != nil {
		return nil, err
	}
	return e.buildWorkingMemory(cfg)
}

// StoredWorkingMode reports the mode the working-memory state under key
// (working.ThreadKey or working.ResourceKey) was written in; ok is false
// when it was never written. It needs no working-memory configuration, so
// tools (mnemo wm) can inspect a state before choosing how to open it.
// Errors: ErrClosed; working.ParseKey's error for a malformed key; the
// database's error.
func (e *Engine) StoredWorkingMode(ctx context.Context, key string) (mode working.Mode, ok bool, err error) {
	if err := e.checkOpen(ctx); err != nil {
		return "", false, err
	}
	return working.StoredMode(ctx, e.db, key)
}

// WorkingMemoryResources returns the ids of up to limit resources (1 to
// MaxPageLimit) that have a working-memory state of their own
// (working.ResourceKey), in byte order, from the first after the id after
// ("": from the first); fewer than limit at the end. A resource's state
// needs no thread, so ThreadsPage does not find every one: mnemo export
// lists them with this. Every tenant's: it is for tools that hold the
// whole store (the server does not call it). Errors: ErrClosed;
// ErrNilContext; a *ValidationError (field "limit") for a limit out of
// range; the database's error.
func (e *Engine) WorkingMemoryResources(ctx context.Context, after string, limit int) ([]string, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if limit < 1 || limit > MaxPageLimit {
		return nil, invalid(-1, "limit", "must be 1 to %d, got %d", MaxPageLimit, limit)
	}
	return working.StoredResources(ctx, e.db, after, limit)
}

// wmOwnerOf is working.Config.OwnerOf for the engine's memories: a
// thread's state belongs to the thread's resource, and a thread that does
// not exist has no state (a write is refused with ErrThreadNotFound, so
// nobody can plant a state that the thread's later creator would be shown);
// a resource's state belongs to the resource.
func wmOwnerOf(ctx context.Context, q working.Querier, key string) (string, error) {
	scope, id, err := working.ParseKey(key)
	if err != nil {
		return "", err
	}
	if scope == working.ScopeResource {
		// The key names the resource the state is stored for, which
		// need not hold a message yet: its id is held to the rule of an
		// id that names something new, as Append's resourceId is (the
		// working package reads any text after "resource:").
		if !ValidNewID(id) {
			return "", fmt.Errorf("%w: resource id %s; got %s", working.ErrInvalidKey, NewIDRule, IDFault(id))
		}
		return id, nil
	}
	owner, err := msgstore.ThreadOwner(ctx, q, id)
	if errors.Is(err, msgstore.ErrNotFound) {
		return "", fmt.Errorf("%w: %q has no messages, so it has no working memory to write", ErrThreadNotFound, id)
	}
	if err != nil {
		return "", fmt.Errorf("engine: working memory owner of %s: %w", key, err)
	}
	return owner, nil
}

// redactWorking is working.Config.Redact: a JSON state is redacted as JSON
// (it stays valid), a markdown state as text.
func (e *Engine) redactWorking(content string) string {
	if strings.HasPrefix(content, "{") && json.Valid([]byte(content)) {
		return string(redactJSON(e.redactor, []byte(content)))
	}
	return e.redactor.Redact(content)
}

// Tools returns the registry of the tools a thread's context offers:
// recallObservations when ObserveConfig.SearchTool asks for it, and
// updateWorkingMemory when working memory is configured and not read-only.
// The registry applies calls through the journal (see HandleToolCall),
// bound to the thread and resource (empty: the stored thread's). It returns
// a *ValidationError naming threadId or resourceId for an id no thread can
// have, and ErrResourceMismatch when the thread exists and belongs to
// another resource than resourceID. On Postgres prefer HandleToolCall: it bounds
// the applications running at once to what the connection pool serves,
// where many concurrent Registry.Handle calls can exhaust it.
func (e *Engine) Tools(ctx context.Context, threadID, resourceID string) (*tools.Registry, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	if resourceID != "" && !ValidID(resourceID) {
		return nil, badID(-1, "resourceId", resourceID, false)
	}
	th, err := e.GetThread(ctx, threadID)
	switch {
	case errors.Is(err, ErrThreadNotFound):
	case err != nil:
		return nil, err
	case resourceID == "":
		resourceID = th.ResourceID
	case resourceID != th.ResourceID:
		return nil, notOwner(threadID, resourceID)
	}
	return e.tools(ctx, threadID, resourceID)
}

// tools is Tools for a thread and resource the caller has checked.
func (e *Engine) tools(ctx context.Context, threadID, resourceID string) (*tools.Registry, error) {
	reg := tools.NewRegistry(e.journal, tools.Owner{ThreadID: threadID, ResourceID: resourceID})
	if o := e.cfg.Observe; o != nil && o.SearchTool {
		scope := observe.Filter{ThreadID: threadID}
		if o.Scope == ObserveScopeResource && resourceID != "" {
			scope = observe.Filter{ResourceID: resourceID}
		}
		t, err := tools.RecallObservations(e.db, scope)
		if err != nil {
			return nil, fmt.Errorf("engine: recallObservations tool: %w", err)
		}
		if err := reg.Register(t); err != nil {
			return nil, fmt.Errorf("engine: recallObservations tool: %w", err)
		}
	}
	mem, err := e.WorkingMemory()
	switch {
	case errors.Is(err, ErrNoWorkingMemory):
		return reg, nil
	case err != nil:
		return nil, err
	}
	if mem.ReadOnly() {
		return reg, nil
	}
	key, err := mem.Key(threadID, resourceID)
	if err != nil {
		return nil, invalid(-1, scopeField(mem), "working memory: %v", err)
	}
	t, err := tools.UpdateWorkingMemory(mem, key)
	if err != nil {
		return nil, fmt.Errorf("engine: working memory tool: %w", err)
	}
	if err := reg.Register(t); err != nil {
		return nil, fmt.Errorf("engine: working memory tool: %w", err)
	}
	return reg, nil
}

// HandleToolCall applies one tool call the model made in a run of a thread
// and returns the tool message answering it; append it (after the assistant
// message that made the call) with Append. The call is applied at most once
// per (runID, threadID, resourceID, call.ID), also across restarts: a resumed run that handles the
// same call again gets the same message and nothing is applied twice. A
// different call (another function or other arguments) under an id the run
// already applied is answered with a refusal result and applies nothing
// (tools.Registry.Handle). Bad
// arguments and unknown tools are answered with a message that says what is
// wrong; an error means the call could not be handled now (the engine is
// closed, storage failed) and nothing was recorded.
//
// The thread must exist (append the user's message first): a call for a
// thread with no messages is refused with ErrThreadNotFound, one naming a
// resource other than the thread's with ErrResourceMismatch, and one in a
// run that belongs to another thread (a run id is owned by the first thread
// that used it, in LoadContext or here) with journal.ErrRunOwned
// (journal.ErrRunErased, which matches it, once that thread was erased:
// the run in flight cannot write its update back); a working-memory
// update of a run whose recorded context holds a turn erased since
// (DeleteMessages while the model answered) is refused with
// journal.ErrRunContextErased, which matches journal.ErrRunErased
// (docs/working-memory.md, "A run in flight…"); nothing
// is applied or recorded, and no error names another resource. resourceID may be empty; then the stored thread's
// resource is used. A call racing DeleteThread or DeleteResource either
// applies before the erasure commits (and is erased with the rest) or
// returns ErrThreadNotFound: it never recreates erased working memory.
// runID, threadID and resourceID (when given) must be ValidNewID: another
// is a *ValidationError naming runId, threadId or resourceId.
// A write that finds the disk full is ErrNoSpace.
func (e *Engine) HandleToolCall(ctx context.Context, runID, threadID, resourceID string, call openai.ToolCall) (openai.ChatCompletionMessage, error) {
	m, err := e.handleToolCall(ctx, runID, threadID, resourceID, call)
	return m, e.writeFailed(err) // disk_space.go
}

func (e *Engine) handleToolCall(ctx context.Context, runID, threadID, resourceID string, call openai.ToolCall) (openai.ChatCompletionMessage, error) {
	if err := e.checkOpen(ctx); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	// The call's application is recorded under the run, the thread and
	// the resource, and its tool message appended to the thread: new data
	// for each, whose ids are held to ValidNewID.
	switch {
	case !e.newID(runID):
		return openai.ChatCompletionMessage{}, badID(-1, "runId", runID, true)
	case checkRunID(runID) != nil:
		return openai.ChatCompletionMessage{}, checkRunID(runID)
	case !e.newID(threadID):
		return openai.ChatCompletionMessage{}, badID(-1, "threadId", threadID, true)
	case resourceID != "" && !e.newID(resourceID):
		return openai.ChatCompletionMessage{}, badID(-1, "resourceId", resourceID, true)
	}
	resourceID, err := e.resourceOf(ctx, threadID, resourceID)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	// From resolving the thread to recording the application, no erasure
	// of the resource may commit (fence.go): a call racing DeleteThread or
	// DeleteResource either applies first, and is erased with the rest, or
	// finds the thread gone and records nothing.
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(resourceID), false)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	defer leave()
	switch _, err := e.resourceOf(ctx, threadID, resourceID); {
	case errors.Is(err, ErrThreadNotFound):
		return openai.ChatCompletionMessage{}, fmt.Errorf("%w: %s was erased while its tool call was handled", ErrThreadNotFound, threadID)
	case err != nil: // ErrResourceMismatch: erased and recreated elsewhere
		return openai.ChatCompletionMessage{}, err
	}
	if err := e.journal.ClaimRun(ctx, runID, threadID, resourceID); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	reg, err := e.tools(ctx, threadID, resourceID)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	release, err := e.applySlot(ctx) // postgres.go
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	defer release()
	return reg.Handle(ctx, runID, call)
}

// resourceOf checks the ids and returns the resource of the stored thread,
// which a given resourceID must match. A thread that does not exist is
// ErrThreadNotFound: tool calls act only on threads that exist.
func (e *Engine) resourceOf(ctx context.Context, threadID, resourceID string) (string, error) {
	if !ValidID(threadID) {
		return "", badID(-1, "threadId", threadID, false)
	}
	if resourceID != "" && !ValidID(resourceID) {
		return "", badID(-1, "resourceId", resourceID, false)
	}
	th, err := e.GetThread(ctx, threadID)
	switch {
	case err != nil:
		return "", err
	case resourceID != "" && resourceID != th.ResourceID:
		return "", notOwner(threadID, resourceID)
	}
	return th.ResourceID, nil
}

// scopeField names the request field a memory's scope key is built from.
func scopeField(mem *working.Memory) string {
	if mem.Scope() == working.ScopeResource {
		return "resourceId"
	}
	return "threadId"
}
