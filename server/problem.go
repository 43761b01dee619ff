package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// ProblemTypeBase prefixes the type URI of every problem the API answers
// with; the suffix names the condition (e.g. ProblemTypeBase+"not-found").
const ProblemTypeBase = "https://mnemo.dev/problems/"

// Problem is an RFC 9457 problem details object (application/problem+json).
type Problem struct {
	// Type is a URI naming the condition; stable across releases.
	Type string `json:"type"`
	// Title is a short summary of the condition (the same for every
	// occurrence of Type).
	Title string `json:"title"`
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Detail explains this occurrence; it names only what the request named.
	Detail string `json:"detail,omitempty"`
	// Instance is the request's path as the client sent it, escapes kept
	// (URL.EscapedPath: /v1/threads/a%2Fb/messages, not a/b), a URI
	// reference as RFC 9457 asks; no query.
	Instance string `json:"instance,omitempty"`
	// Field is the JSON name (or query parameter, or header:
	// "Authorization") of the input at fault, when one is.
	Field string `json:"field,omitempty"`
	// Differences lists what a diverged replay found changed.
	Differences []string `json:"differences,omitempty"`
}

// problem kinds: type suffix, status and title.
type kind struct {
	slug   string
	status int
	title  string
}

var (
	kindInvalid      = kind{"invalid-input", http.StatusBadRequest, "Invalid input"}
	kindUnauthorized = kind{"unauthorized", http.StatusUnauthorized, "Missing or unknown bearer token"}
	kindForbidden    = kind{"forbidden", http.StatusForbidden, "The token does not allow this operation"}
	// kindEraseOff is an erasure refused to a client without a token
	// (mnemo mcp without --allow-erase, Principal.EraseHint): the type
	// of kindForbidden, titled without a token the client has not.
	kindEraseOff = kind{"forbidden", http.StatusForbidden, "Erasure is not enabled for this client"}
	// kindCrossOrigin and kindHost are the refusals of a server without a
	// token file (checkLoopbackHost), which no token could change: before,
	// they were titled as kindForbidden, naming a token the server has not.
	kindCrossOrigin = kind{"cross-origin", http.StatusForbidden, "Cross-origin browser request refused"}
	kindHost        = kind{"host-refused", http.StatusForbidden, "Request addressed to a host this server does not answer"}
	kindNotFound    = kind{"not-found", http.StatusNotFound, "Not found"}
	// kindOutside is a resource the principal may not touch, said so
	// (Principal.OutsideHint): a not-found answer to every caller's logic
	// (Is), titled for what it is.
	kindOutside     = kind{"not-found", http.StatusNotFound, "Resource outside this client's resources"}
	kindConflict    = kind{"conflict", http.StatusConflict, "Conflict with stored data"}
	kindDiverged    = kind{"replay-diverged", http.StatusConflict, "Replay diverged from the recorded run"}
	kindTooLarge    = kind{"body-too-large", http.StatusRequestEntityTooLarge, "Request body too large"}
	kindBodyTimeout = kind{"body-timeout", http.StatusRequestTimeout, "Request body too slow"}
	kindRefused     = kind{"update-refused", http.StatusUnprocessableEntity, "Working-memory update refused"}
	// kindModeMismatch is working.ErrModeMismatch: a patch of a state
	// kept in the other mode before the configuration changed, which
	// only a whole state (content) replaces: the stored state conflicts
	// with the update, as 409 says (a 500 "internal" before).
	kindModeMismatch = kind{"working-memory-mode", http.StatusConflict, "Working memory state of another mode"}
	kindAnswerSize   = kind{"answer-too-large", http.StatusUnprocessableEntity, "Answer too large"}
	kindNoWM         = kind{"working-memory-off", http.StatusNotFound, "Working memory is not configured"}
	// kindStoredWM is engine.ErrStoredWorkingMemory: the working-memory
	// configuration stored in the database does not build in this server
	// (a newer build's, say), which no request can change and a server of
	// that build, or a restart with --config, can: 503, as a schema a
	// newer build migrated (a bare 500 "internal" before).
	kindStoredWM = kind{"working-memory-unavailable", http.StatusServiceUnavailable, "Working memory is unavailable"}
	kindQuota    = kind{"quota-exceeded", http.StatusTooManyRequests, "Storage quota exceeded"}
	// kindNoSpace is engine.ErrNoSpace: the disk of the server's data
	// directory is full and the write was rolled back. 507 (RFC 4918,
	// "unable to store the representation"), not 503 with Retry-After:
	// a full disk clears when an operator frees space, not in seconds,
	// and no other server of a SQLite directory can take the write, so a
	// client or load balancer retrying on the 503 would only repeat it.
	// A 500 "internal" before, though nothing was wrong with mnemo.
	kindNoSpace     = kind{"insufficient-storage", http.StatusInsufficientStorage, "Server disk full"}
	kindTooMany     = kind{"too-many-failures", http.StatusTooManyRequests, "Too many failed authentications"}
	kindUnavailable = kind{"unavailable", http.StatusServiceUnavailable, "Service unavailable"}
	// kindDamaged is a damaged database (engine.IsDatabaseCorrupt): a
	// request that met a damaged page, or came after one did and would
	// store new data. 503 without Retry-After: the file does not heal, so
	// a client must not retry in seconds; an operator must act (restore or
	// salvage). Not "unavailable", which a client retries (it was until
	// 2026-12-07).
	kindDamaged = kind{"database-damaged", http.StatusServiceUnavailable, "Database damaged"}
	// kindReplaced is engine.ErrDatabaseReplaced: mnemo.db was replaced
	// under the running server, whose writes would go into the old file.
	// 503 without Retry-After: it lasts until the server is restarted.
	kindReplaced = kind{"database-replaced", http.StatusServiceUnavailable, "Database replaced"}
	// kindWriteBusy is engine.ErrWriteBusy: a write waited the busy
	// timeout for the other writes and gave up, nothing of that write
	// made. A transient overload, so 503 with Retry-After (a 500
	// "internal" before, as if mnemo were at fault).
	kindWriteBusy = kind{"database-busy", http.StatusServiceUnavailable, "Database busy"}
	// kindDatabaseLocked is engine.ErrDatabaseLocked: another program
	// held mnemo.db locked (locking_mode EXCLUSIVE) and no connection to
	// it opened within the busy timeout, for a read as for a write. Not
	// database-busy, whose detail says a write waited for other writes.
	// 503 with Retry-After: it clears when that program closes the file
	// (a 500 "internal" before).
	kindDatabaseLocked = kind{"database-locked", http.StatusServiceUnavailable, "Database locked"}
	// kindTimeout is a request that ran past Config.RequestTimeout.
	kindTimeout   = kind{"timeout", http.StatusServiceUnavailable, "Request timed out"}
	kindInternal  = kind{"internal", http.StatusInternalServerError, "Internal error"}
	kindMediaType = kind{"unsupported-media-type", http.StatusUnsupportedMediaType, "Request body must be application/json"}
	kindMethod    = kind{"method-not-allowed", http.StatusMethodNotAllowed, "Method not allowed"}

	// kindClientGone is a request whose client hung up (its context was
	// cancelled) before the answer: nobody reads it, and the access log
	// and metrics count it as 499 (nginx's "client closed request"), not
	// as a server error.
	kindClientGone = kind{"client-closed-request", statusClientClosed, "Client closed the request"}
)

// apiError is an error the handlers return: a kind, a detail safe to show
// the caller and, optionally, the field at fault.
type apiError struct {
	kind   kind
	detail string
	field  string
	diffs  []string
	cause  error // logged, never shown
	// retry is the Retry-After of a 429 too-many-failures answer.
	retry time.Duration
	// lasting marks a 503 that waiting does not clear (a damaged or
	// removed database file: the operator must act), answered without
	// the Retry-After every other 503 carries.
	lasting bool
}

func (e *apiError) Error() string { return e.detail }

// Is makes a not-found answer match ErrNotFound.
func (e *apiError) Is(target error) bool {
	return target == ErrNotFound && (e.kind == kindNotFound || e.kind == kindOutside)
}

// WorkingMemoryOffDetail is the detail of the working-memory-off problem
// (engine.ErrNoWorkingMemory), the HTTP API's 404 and the MCP tools'
// error alike: it says how the operator turns working memory on. The
// configuration mnemo serve --config stores goes with the data, so every
// later command on it (mnemo mcp, which takes no --config, included)
// uses it.
const WorkingMemoryOffDetail = "this server has no working memory configured; to turn it on, start mnemo serve once with --config FILE " +
	`whose "workingMemory" member gives a schema, schemaFile or template (docs/serve.md#mnemo-json; it is stored with the data, ` +
	"and later commands on it, mnemo mcp included, use it), or set engine.Config.WorkingMemory in a Go program"

// NoSpaceDetail is the detail of the insufficient-storage problem
// (engine.ErrNoSpace, 507), the HTTP API's and the MCP tools' alike; the
// server log names the disk.
const NoSpaceDetail = "the server's disk is full: the write was refused and rolled back, nothing of this request was stored; " +
	"send it again once the server's operator has freed space (the server log names the disk)"

// DiskFullDetail is GET /healthz's reason while the last write found the
// disk full (engine.DiskFull: a request's write, or the search index's
// own, while mnemo.db may still take the appends): it names no data and no
// path (the server log names the disk).
const DiskFullDetail = "the server's disk is full: the last write was refused for lack of disk space (a request's write answers 507, nothing of it stored; " +
	"the search index's own writes wait, and the messages they owe are searched once there is room); " +
	"reads and searches answer. Free space on the disk holding the data (the server log names it); the next write that succeeds clears this"

// WriteBusyDetail is the detail of the database-busy problem
// (engine.ErrWriteBusy, 503), the HTTP API's and the MCP tools' alike. It
// names engine.WriteBusyTimeout ("10s"), and says only that the write
// that waited was not made: a request that writes more than once (a
// context's observation before its record, say) keeps what it wrote
// before that write.
var WriteBusyDetail = fmt.Sprintf("the database is busy: a write of this request waited %s for other writes "+
	"(the server's: a long erasure or vacuum, or many writes at once; or another process holding the database's write lock) "+
	"and was not made (a request that writes more than once keeps what it wrote before that write); try again in a few seconds",
	engine.WriteBusyTimeout)

// DatabaseLockedDetail is the detail of the database-locked problem
// (engine.ErrDatabaseLocked, 503), the HTTP API's and the MCP tools'
// alike. It names engine.WriteBusyTimeout ("10s", SQLite's busy timeout
// too) and no path.
var DatabaseLockedDetail = fmt.Sprintf("the database is locked by another program: the server could not open a connection to it within %s "+
	"(a sqlite3 shell or a script holding it in locking_mode EXCLUSIVE keeps every other process out until it closes the file), "+
	"so what this request needed it for was not done (a request that writes more than once keeps what it wrote before); "+
	"try again once the server's operator has closed that program",
	engine.WriteBusyTimeout)

// IndexUnavailableDetail is GET /healthz's reason while the lexical index
// is damaged and not quarantined yet, or the recall indexes are closed
// (engine.IndexUnavailable).
const IndexUnavailableDetail = "the search index is damaged or closed: a damaged or removed index is not rebuilt yet (a full disk, for one, keeps it closed; " +
	"the server log has the cause); it is rebuilt in the background. Messages are stored and read; searches and contexts recall nothing meanwhile"

// DiskFullIndexUnavailableDetail is GET /healthz's reason while both hold:
// the last write found the disk full (engine.DiskFull) and the recall
// indexes are closed or damaged (engine.IndexUnavailable), as a full disk
// that kept a quarantined index from being rebuilt leaves them.
const DiskFullIndexUnavailableDetail = "the server's disk is full: the last write was refused for lack of disk space (507, nothing of it stored); " +
	"and the search index is damaged or closed, not rebuilt for lack of room (the server log has the cause): messages are read, " +
	"searches and contexts recall nothing. Free space on the disk holding the data (the server log names it); the next write that succeeds " +
	"clears the first, and the index is then rebuilt in the background"

// StoredWorkingMemoryDetail is the detail of the working-memory-unavailable
// problem (engine.ErrStoredWorkingMemory, 503), the HTTP API's and the
// MCP tools' alike; the server log has the stored configuration's fault.
const StoredWorkingMemoryDetail = "the working-memory configuration stored with this server's data does not build in this server " +
	"(stored by another mnemo build, or damaged; the server log and mnemo check say why); to replace it, start mnemo serve once with --config FILE " +
	`whose "workingMemory" member gives a schema, schemaFile or template (docs/serve.md#mnemo-json)`

// Describe returns the problem details a caller may see for err: its stable
// type, status and a detail that names only what the caller named (an
// internal error's cause is not shown). The MCP tools answer with it.
func Describe(err error) Problem {
	ae := classify(err)
	return Problem{Type: ProblemTypeBase + ae.kind.slug, Title: ae.kind.title, Status: ae.kind.status,
		Detail: ae.detail, Field: ae.field, Differences: ae.diffs}
}

// Describe is the package's Describe for an error of t's engine: a lost
// database connection (engine.Engine.Unavailable: Postgres refusing,
// closing or not answering) is the 503 "unavailable" problem the HTTP
// routes answer, not an internal error; working memory being off is said
// in the principal's words when it has some (WorkingMemoryOffHint).
func (t Tenant) Describe(err error) Problem {
	if t.Principal != nil && t.Principal.WorkingMemoryOffHint != "" && errors.Is(err, engine.ErrNoWorkingMemory) {
		return Describe(&apiError{kind: kindNoWM, detail: t.Principal.WorkingMemoryOffHint, cause: err})
	}
	return Describe(unreachable(t.Engine, err))
}

// unreachable wraps err as the "unavailable" problem when e lost its
// database connection, or when a newer build migrated the schema under it
// (engine.ErrSchemaMigrated: a server of that build can take the request,
// so 503, which a load balancer sends elsewhere); other errors are
// returned as they are.
func unreachable(e *engine.Engine, err error) error {
	switch {
	case e != nil && e.Unavailable(err):
		return &apiError{kind: kindUnavailable, detail: "the database is unreachable; try again later", cause: err}
	case errors.Is(err, engine.ErrSchemaMigrated):
		return &apiError{kind: kindUnavailable, cause: err, detail: "a newer mnemo build migrated the database's schema while this server ran, " +
			"so this server no longer writes to it; send the request to a server of the newer build"}
	}
	return err
}

func errorf(k kind, field, format string, args ...any) *apiError {
	return &apiError{kind: k, field: field, detail: fmt.Sprintf(format, args...)}
}

// tooManyFailures is the 429 problem of an address over its
// AuthLimiter's limit (err from AuthLimiter.Check), with its Retry-After.
func tooManyFailures(err error) *apiError {
	var te *TooManyFailuresError
	ae := &apiError{kind: kindTooMany, retry: DefaultAuthEvery}
	if errors.As(err, &te) {
		ae.retry = te.Wait
	}
	ae.detail = fmt.Sprintf("too many failed authentications from this address: no token is checked from it for %d s (Retry-After); check the token your client sends", RetryAfter(ae.retry))
	return ae
}

// notFound is the one answer for a missing object and for an object of a
// resource the token may not touch, worded as the CLI's: `run not found:
// "ID"`, naming only the kind and the id the request gave ("" for none:
// `dispatch not found`), never what another tenant holds.
func notFound(what, id string) *apiError {
	if id == "" {
		return &apiError{kind: kindNotFound, detail: what + " not found"}
	}
	return &apiError{kind: kindNotFound, detail: fmt.Sprintf("%s not found: %q", what, id)}
}

// classify maps an error of the engine (or of the handlers) to an apiError:
// an apiError as it is, else the first answer of problemOf's classifiers,
// tried in order. Unknown errors are internal: the caller sees a generic
// detail, the log gets the cause.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	for _, problem := range problemOf {
		if ae := problem(err); ae != nil {
			return ae
		}
	}
	return &apiError{kind: kindInternal, detail: "the request failed; the server log has the cause", cause: err}
}

// problemOf are classify's classifiers, each the problem of the errors it
// knows and nil for any other, in the order classify tries them: an error
// that matches two (a join, a DivergenceError's causes) is answered as the
// first that knows it.
var problemOf = []func(error) *apiError{
	callConflict,
	invalidProblem,
	divergedProblem,
	dispatchProblem,
	conflictProblem,
	workingProblem,
	storageProblem,
	sizeProblem,
	busy,
	databaseDamaged,
}

// invalidProblem is the 400 problem of input the engine or recall refused
// (nil for any other error), naming the field at fault: a message's or the
// request's (engine.ValidationError; an id's by idProblem), recall.filter,
// a recall option, recall.scope for a thread scope without a thread, or
// recall as a whole.
func invalidProblem(err error) *apiError {
	var ve *engine.ValidationError
	var fe *recall.FilterError
	var oe *recall.OptionError
	var qe *recall.QueryError
	switch {
	case errors.As(err, &ve):
		field := ve.Field
		if ve.Index >= 0 {
			field = fmt.Sprintf("messages[%d].%s", ve.Index, ve.Field)
		}
		if ve.Got != "" {
			return idProblem(field, ve)
		}
		return &apiError{kind: kindInvalid, field: field, detail: strings.TrimPrefix(err.Error(), "engine: ")}
	case errors.As(err, &fe):
		// Worded as POST /v1/context's (engine.LoadContext's) bad filter.
		return &apiError{kind: kindInvalid, field: "recall.filter", detail: "invalid recall.filter: " + strings.TrimPrefix(err.Error(), "recall: invalid filter ")}
	case errors.As(err, &oe):
		return &apiError{kind: kindInvalid, field: "recall." + oe.Field, detail: "recall." + oe.Field + " " + oe.Rule}
	case errors.As(err, &qe) && qe.Field == "ThreadID":
		// The request's recall.scope, not its query: a search body has no thread.
		return &apiError{kind: kindInvalid, field: "recall.scope", detail: "recall.scope thread needs threadId (the thread to search)"}
	case errors.Is(err, recall.ErrInvalidOptions), errors.Is(err, recall.ErrInvalidQuery):
		return &apiError{kind: kindInvalid, field: "recall", detail: strings.TrimPrefix(err.Error(), "recall: ")}
	}
	return nil
}

// divergedProblem is the 409 problem of a replay that found the store
// changed (engine.DivergenceError, its differences listed), nil for any
// other error.
func divergedProblem(err error) *apiError {
	var de *engine.DivergenceError
	if errors.As(err, &de) {
		return &apiError{kind: kindDiverged, detail: "the store no longer holds what the run used", diffs: de.Differences}
	}
	return nil
}

// conflicts are the 409 problems of the sentinels whose detail says
// nothing of the error itself, in the order conflictProblem tries them.
var conflicts = []struct {
	target        error
	field, detail string
}{
	{engine.ErrConflict, "messages", "a message id is already stored with different content, or in another thread"},
	// journal.ErrRunErased too, which matches it: classify does not
	// know who asks, and "was erased" would tell any tenant that
	// another's conversation under the id was erased, and when.
	// Tenant.LoadContext tells the run's own tenant
	// (runErasedConflict).
	{journal.ErrRunOwned, "runId", "the run id belongs to another conversation; choose another id (replaceRun replaces only a run of this thread)"},
	{journal.ErrRunExists, "runId", "the run id already has a memctx record; set replaceRun or choose another id"},
}

// conflictProblem is the problem of the first of conflicts err matches
// (errors.Is), nil when it matches none.
func conflictProblem(err error) *apiError {
	for _, c := range conflicts {
		if errors.Is(err, c.target) {
			return &apiError{kind: kindConflict, field: c.field, detail: c.detail}
		}
	}
	return nil
}

// storageProblem is the problem of a write refused for room (nil for any
// other error): a quota's 429 (quotaExceeded), a full disk's 507.
func storageProblem(err error) *apiError {
	switch {
	case errors.Is(err, engine.ErrQuotaExceeded):
		return quotaExceeded(err)
	case engine.IsNoSpace(err): // a working-memory write's too (SQLite's own error)
		// The engine's error names the disk: the operator's, in the log.
		return &apiError{kind: kindNoSpace, detail: NoSpaceDetail, cause: err}
	}
	return nil
}

// sizeProblem is the 422 problem of an answer past the server's
// limits.maxAnswerBytes (nil for any other error): a context's
// (answerTooLarge) or a replay's.
func sizeProblem(err error) *apiError {
	var at *engine.AnswerTooLargeError
	var rt *engine.ReplayTooLargeError
	switch {
	case errors.As(err, &at):
		// Refused rather than cut: a context answer that left hits out
		// would be a prompt the caller did not ask for; the caller lowers
		// what it asked for instead (docs/serve.md).
		return answerTooLarge(at)
	case errors.As(err, &rt):
		// Refused rather than replayed in part: a replay rebuilds the
		// whole prompt to check its hash, and no field of the request
		// shrinks what it reads.
		return &apiError{kind: kindAnswerSize, detail: fmt.Sprintf(
			"run %s cannot be replayed: its turns pass %d bytes (the server's limits.maxAnswerBytes); a server with a larger limits.maxAnswerBytes replays it", rt.RunID, rt.Limit)}
	}
	return nil
}

// dispatchProblem is the problem of a dispatch refused by the engine
// (answered, erased, not found, settled, conflicting), nil for any other
// error.
func dispatchProblem(err error) *apiError {
	detail := strings.TrimPrefix(err.Error(), "engine: ")
	switch {
	case errors.Is(err, engine.ErrDispatchAnswered):
		return &apiError{kind: kindConflict, field: "callId", detail: detail}
	case errors.Is(err, engine.ErrDispatchErased):
		return &apiError{kind: kindConflict, field: "runId", detail: detail}
	case errors.Is(err, engine.ErrDispatchNotFound):
		return notFound("dispatch", "")
	case errors.Is(err, engine.ErrDispatchSettled):
		return &apiError{kind: kindConflict, field: "result", detail: detail}
	case errors.Is(err, engine.ErrDispatchConflict):
		return &apiError{kind: kindConflict, field: "callId", detail: detail}
	}
	return nil
}

// busy is the 503 problem of a request the server cannot take now (nil
// for any other error): a write that waited too long for the others
// (database-busy), a database another program holds locked
// (database-locked), an erasure that waited too long for work in flight, an
// engine closing.
func busy(err error) *apiError {
	switch {
	case errors.Is(err, engine.ErrWriteBusy):
		return &apiError{kind: kindWriteBusy, detail: WriteBusyDetail, cause: err}
	case errors.Is(err, engine.ErrDatabaseLocked):
		return &apiError{kind: kindDatabaseLocked, detail: DatabaseLockedDetail, cause: err}
	case errors.Is(err, engine.ErrEraseBusy):
		return &apiError{kind: kindUnavailable, detail: "the erasure waited too long for work in flight; nothing was erased, try again", cause: err}
	case errors.Is(err, engine.ErrClosed):
		return &apiError{kind: kindUnavailable, detail: "the engine is closing", cause: err}
	}
	return nil
}

// workingProblem is the problem of a working-memory error (nil for any
// other): none configured (404), a stored configuration that does not
// build (503), a patch of a state of the other mode (409), an update
// refused (422), a bad key (400).
func workingProblem(err error) *apiError {
	switch {
	case errors.Is(err, engine.ErrNoWorkingMemory):
		return &apiError{kind: kindNoWM, detail: WorkingMemoryOffDetail}
	case errors.Is(err, engine.ErrStoredWorkingMemory):
		return &apiError{kind: kindStoredWM, detail: StoredWorkingMemoryDetail, cause: err}
	case errors.Is(err, working.ErrModeMismatch): // before Refused, which it matches
		// Only a patch (Merge, schema mode) meets it here: the whole
		// state it asks for is a JSON object, sent as one or as text.
		return &apiError{kind: kindModeMismatch, field: "patch", detail: strings.TrimPrefix(err.Error(), "working: ") +
			" (send content, the whole state: a JSON object, or its text as a JSON string)", cause: err}
	case working.Refused(err):
		return &apiError{kind: kindRefused, detail: strings.TrimPrefix(err.Error(), "working: "), cause: err}
	case errors.Is(err, working.ErrInvalidKey):
		return &apiError{kind: kindInvalid, field: "scope", detail: strings.TrimPrefix(err.Error(), "working: ")}
	}
	return nil
}

// callConflict is the 409 of a tool call refused because of another call
// with its id (nil for any other error): a pending dispatch's
// (DispatchPendingError: its late settlement would answer the new call),
// an unanswered call's (CallOpenError: its result would), another run's
// dispatch holding the call (CallDispatchedError); worded as the engine's.
func callConflict(err error) *apiError {
	var pe *engine.DispatchPendingError
	var co *engine.CallOpenError
	var cd *engine.CallDispatchedError
	switch {
	case errors.As(err, &pe):
		return &apiError{kind: kindConflict, field: fmt.Sprintf("messages[%d].toolCalls", pe.Index), detail: pendingDetail(pe)}
	case errors.As(err, &co):
		return &apiError{kind: kindConflict, field: co.Field(), detail: strings.TrimPrefix(co.Error(), "engine: ")}
	case errors.As(err, &cd):
		return &apiError{kind: kindConflict, field: "callId", detail: strings.TrimPrefix(cd.Error(), "engine: ")}
	}
	return nil
}

// engineSettleAdvice is the end of DispatchPendingError's text, which
// names SettleDispatch, a call of the Go library that the API and the MCP
// tools do not offer.
const engineSettleAdvice = "settle it first (SettleDispatch) or give the new call another id"

// pendingDetail is the detail of a DispatchPendingError for a client of
// the API or the MCP tools: the engine's words, with what such a client
// can do instead of SettleDispatch: answer the pending call with a tool
// message (docs/working-memory.md, "Side-effecting tools").
func pendingDetail(pe *engine.DispatchPendingError) string {
	advice := fmt.Sprintf(`answer the pending call first with a tool message {"role":"tool","toolCallId":%q,"content":…} holding its outcome `+
		`(earlier in this append, or in one before it), or give the new call another id`, pe.CallID)
	return strings.Replace(strings.TrimPrefix(pe.Error(), "engine: "), engineSettleAdvice, advice, 1)
}

// quotaExceeded is the 429 problem of an append that
// Lifecycle.Quota.Refuse refused (nothing was stored). A resource's bound
// is the caller's own: the detail gives it and what the resource would
// hold. A store's bound is shared by every resource (every tenant's), and
// the detail gives no figure of it, neither its usage (engine.QuotaError
// has none) nor the bound, which the engine's error names for the
// operator: a tenant who knew the bound would learn, from a refusal and
// its own usage, how much the other tenants hold, as an eviction count
// would tell it of their activity (AppendResult.Evicted).
func quotaExceeded(err error) *apiError {
	var qe *engine.QuotaError
	if errors.As(err, &qe) && qe.Scope == "store" {
		return &apiError{kind: kindQuota, field: "messages", detail: fmt.Sprintf(
			"quota exceeded: the store's %s bound is reached (a bound every resource shares, set by the operator); nothing was stored", qe.Field)}
	}
	return &apiError{kind: kindQuota, field: "messages", detail: strings.TrimPrefix(err.Error(), "engine: ")}
}

// retryAfter is the Retry-After header (seconds) of every 503 answer but
// a lasting one (apiError.lasting): an engine closing, an erasure that
// waited too long, a write that waited too long for the others
// (database-busy), a database another program holds locked
// (database-locked), a database outage.
const retryAfter = "5"

// bearerChallenge is the WWW-Authenticate challenge of a 401 answer to r
// (RFC 6750 section 3): Bearer realm="mnemo", with error="invalid_token"
// when r sent a bearer token (one the token file does not hold), and no
// error code when it sent none (or another scheme), as the RFC asks. The
// MCP authorization spec's resource_metadata parameter (RFC 9728) is left
// out: it points an OAuth client at the protected resource metadata of an
// authorization server, and mnemo's tokens come from its token file, not
// from OAuth, so there is no such document to point at.
func bearerChallenge(r *http.Request) string {
	const scheme = "Bearer "
	if a := r.Header.Get("Authorization"); len(a) > len(scheme) && strings.EqualFold(a[:len(scheme)], scheme) {
		return `Bearer realm="mnemo", error="invalid_token"`
	}
	return `Bearer realm="mnemo"`
}

// statusClientClosed is the status logged for a request whose client hung
// up before its answer (no client sees it; net/http names none).
const statusClientClosed = 499

// writeProblem answers err as problem+json and logs internal causes. An
// error wrapping context.Canceled while r's context is done is the client's
// hang-up, not a fault: answered (to nobody) and logged as 499, at info
// level in the access log only. Every problem carries Cache-Control:
// no-store and nosniff, on the API and on the mounts alike (/mcp's 401
// and 429 had nosniff only): it answers one request, about what that
// request named, and no cache or browser should keep or sniff it; a 401
// carries the bearer challenge (bearerChallenge). Its text is as given
// (encodeJSON): a detail naming the field "<x>" says "<x>", where it said
// "\u003cx\u003e" before, unlike the API's success answers.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	ae := classify(err)
	if r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(ae.cause, context.Canceled)) {
		ae = &apiError{kind: kindClientGone, detail: "the client closed the request before its answer"}
	}
	if ae.cause != nil && ae.kind.status >= 500 {
		log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("path", r.URL.EscapedPath()), slog.String("err", ae.cause.Error()))
	}
	p := Problem{
		Type: ProblemTypeBase + ae.kind.slug, Title: ae.kind.title, Status: ae.kind.status,
		Detail: ae.detail, Instance: r.URL.EscapedPath(), Field: ae.field, Differences: ae.diffs,
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if ae.kind.status == http.StatusServiceUnavailable && !ae.lasting {
		h.Set("Retry-After", retryAfter)
	}
	if ae.retry > 0 {
		h.Set("Retry-After", strconv.Itoa(RetryAfter(ae.retry)))
	}
	if ae.kind.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", bearerChallenge(r))
	}
	w.WriteHeader(p.Status)
	encodeJSON(w, p)
}
