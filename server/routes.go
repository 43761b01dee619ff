package server

import (
	"net/http"
	"regexp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// route is one operation of the API. The mux and the OpenAPI document are
// both built from the routes table, so neither can name an operation the
// other lacks (openapi_test.go checks the served document against the mux).
type route struct {
	method, path string
	op           string  // OpenAPI operationId
	summary      string  // one line
	tag          string  // OpenAPI tag
	auth         bool    // needs a bearer token when the server has a token file
	body         any     // zero value of the request body type; nil for none
	resp         any     // zero value of the 2xx answer type; nil for a raw answer
	status       int     // success status; 0 means 200
	query        []param // query parameters
	errors       []int   // problem statuses besides 400/401/413/500
	handle       func(s *Server, r *http.Request, p *Principal) (any, error)
	write        func(s *Server, w http.ResponseWriter, r *http.Request, p *Principal) // raw answer
	contentType  string                                                                // raw answer's media type
	// newID reports that the path's id names what the request stores (its
	// handler holds it to NewID): its schema refuses "." and "..".
	newID bool
}

// param is a documented query parameter. A doc that starts with
// "Deprecated" marks it deprecated in the OpenAPI document.
type param struct {
	name, typ, doc string
}

func (rt *route) pattern() string { return rt.method + " " + rt.path }

func (rt *route) okStatus() int {
	if rt.status == 0 {
		return http.StatusOK
	}
	return rt.status
}

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// routes is the API. Keep it in path order: the OpenAPI document lists
// paths in this order.
var routes = []*route{
	{method: "GET", path: "/healthz", op: "health", tag: "service", summary: "Liveness: the engine is open, its database answers within 5 s and no request has found the database file damaged (else 503)", resp: Health{}, errors: []int{503}, handle: (*Server).health},
	{method: "GET", path: "/openapi.json", op: "openapi", tag: "service", summary: "This OpenAPI 3.1 document", write: (*Server).serveOpenAPI, contentType: "application/json"},
	{method: "GET", path: "/metrics", op: "metrics", tag: "service", auth: true, summary: "Prometheus metrics (requests, latencies, outbox depth, index lag); needs an operator token when the server has a token file", write: (*Server).serveMetrics, contentType: "text/plain; version=0.0.4", errors: []int{403}},

	{method: "GET", path: "/v1/threads", op: "listThreads", tag: "threads", auth: true, summary: "List threads (metadata only) of a resource, or of every resource the token may touch", resp: ThreadList{},
		query: []param{{"resourceId", "string", "only this resource's threads"}, {"limit", "integer", "page size, 1 to 1000 (default 100)"},
			{"cursor", "string", "the nextCursor of the page before (none: the first page); opaque. The order is resource, creation time, id; each page costs about limit rows wherever it starts, and threads created or deleted between pages move no other (every thread present throughout is listed exactly once). A cursor that is not a nextCursor, or of a resource this listing does not hold, is a 400 naming cursor"},
			{"offset", "integer", "Deprecated (use cursor): threads to skip (default 0); not with cursor. A thread created or deleted between pages shifts the offsets (a thread listed twice or missed), and the threads skipped are read again on each page"}}, errors: []int{404}, handle: (*Server).listThreads},
	{method: "GET", path: "/v1/threads/{thread}", op: "getThread", tag: "threads", auth: true, summary: "A thread's metadata", resp: engine.Thread{}, errors: []int{404}, handle: (*Server).getThread},
	{method: "DELETE", path: "/v1/threads/{thread}", op: "deleteThread", tag: "erasure", auth: true, summary: "Erase a thread and everything derived from it (needs a token with erase)", resp: EraseResult{}, errors: []int{403, 404}, handle: (*Server).deleteThread},
	{method: "GET", path: "/v1/threads/{thread}/messages", op: "listMessages", tag: "threads", auth: true, summary: "A page of a thread's messages in seq order (limit, default 100, at most 1000)", resp: MessageList{},
		query: []param{{"fromSeq", "integer", "first seq, >= 1 (default 1)"}, {"toSeq", "integer", "last seq, >= fromSeq (default 0: to the end)"},
			{"limit", "integer", "page size, 1 to 1000 (default 100): the oldest limit messages from fromSeq, and nextFromSeq when more follow"},
			{"beforeSeq", "integer", "the newest limit messages with seq < beforeSeq (a large value: the latest page), and nextBeforeSeq when older ones remain; with fromSeq or toSeq, within them: ?fromSeq=S&beforeSeq=B pages back from B down to S (B > S), and nextBeforeSeq is absent once a page reaches S"}}, errors: []int{404}, handle: (*Server).listMessages},
	{method: "POST", path: "/v1/threads/{thread}/messages", op: "appendMessages", newID: true, tag: "threads", auth: true, summary: "Append messages to a thread (all or none); creates the thread", body: AppendBody{}, resp: AppendResult{}, errors: []int{404, 409, 415, 429}, handle: (*Server).appendMessages},
	{method: "GET", path: "/v1/threads/{thread}/observations", op: "listThreadObservations", tag: "observations", auth: true, summary: "A thread's observations and reflections with their source ranges", resp: ObservationList{},
		query: []param{{"all", "boolean", "include retired and invalidated ones"}}, errors: []int{404}, handle: (*Server).threadObservations},
	{method: "GET", path: "/v1/threads/{thread}/working-memory", op: "getThreadWorkingMemory", tag: "working memory", auth: true, summary: "The working memory of a thread (thread scope) or of its resource (resource scope)", resp: WorkingMemory{}, errors: []int{404}, handle: (*Server).getThreadWM},
	{method: "PUT", path: "/v1/threads/{thread}/working-memory", op: "updateThreadWorkingMemory", newID: true, tag: "working memory", auth: true, summary: "Replace (content) or merge-patch (patch) the working memory of a thread, validated as the context renders it", body: WorkingMemoryUpdate{}, resp: WorkingMemory{}, errors: []int{404, 409, 415, 422}, handle: (*Server).putThreadWM},

	{method: "DELETE", path: "/v1/messages/{message}", op: "deleteMessage", tag: "erasure", auth: true, summary: "Erase one message and everything derived from it (needs a token with erase)", resp: EraseResult{}, errors: []int{403, 404}, handle: (*Server).deleteMessage},

	{method: "DELETE", path: "/v1/resources/{resource}", op: "deleteResource", tag: "erasure", auth: true, summary: "Erase a resource: every thread, message, observation, working memory and memctx preview (needs a token with erase)", resp: EraseResult{}, errors: []int{403, 404}, handle: (*Server).deleteResource},
	{method: "GET", path: "/v1/resources/{resource}/observations", op: "listResourceObservations", tag: "observations", auth: true, summary: "Observations of every thread of a resource", resp: ObservationList{},
		query: []param{{"all", "boolean", "include retired and invalidated ones"}}, errors: []int{404}, handle: (*Server).resourceObservations},
	{method: "GET", path: "/v1/resources/{resource}/working-memory", op: "getResourceWorkingMemory", tag: "working memory", auth: true, summary: "The working memory of a resource (resource scope)", resp: WorkingMemory{}, errors: []int{404}, handle: (*Server).getResourceWM},
	{method: "PUT", path: "/v1/resources/{resource}/working-memory", op: "updateResourceWorkingMemory", newID: true, tag: "working memory", auth: true, summary: "Replace (content) or merge-patch (patch) the working memory of a resource", body: WorkingMemoryUpdate{}, resp: WorkingMemory{}, errors: []int{404, 409, 415, 422}, handle: (*Server).putResourceWM},

	{method: "POST", path: "/v1/context", op: "loadContext", tag: "memory", auth: true, summary: "Compose the memory part of the next prompt (recent window, recall, observations, working memory) and record its memctx", body: ContextBody{}, resp: Context{}, errors: []int{404, 409, 415, 422}, handle: (*Server).loadContext},
	{method: "POST", path: "/v1/search", op: "search", tag: "memory", auth: true, summary: "Hybrid recall over a resource: hits in rank order with their text, role, thread, seq and scores", body: SearchBody{}, resp: engine.SearchResult{}, errors: []int{404, 415, 422}, handle: (*Server).search},

	{method: "GET", path: "/v1/runs", op: "listRuns", tag: "runs", auth: true, summary: "Runs with a memctx record, newest first", resp: RunList{},
		query: []param{{"resourceId", "string", "this resource's runs (required for a token of several resources unless threadId names a stored thread of its own)"}, {"threadId", "string", "this thread's runs; of an id that is not a stored thread of yours (a context loaded before the first append), your runs on it, and 404 when you have none"}, {"limit", "integer", "page size, 1 to 1000 (journal.MaxRunsLimit; default 100)"},
			{"cursor", "string", "the nextCursor of the page before (none: the first page); opaque. Each page costs about limit rows wherever it starts, and runs recorded or erased between pages move no other. A cursor that is not a nextCursor is a 400 naming cursor"},
			{"offset", "integer", "Deprecated (use cursor): runs to skip; not with cursor. A run recorded between pages shifts the offsets (a run listed twice), and the runs skipped are read again on each page"}},
		errors: []int{404}, handle: (*Server).listRuns},
	{method: "GET", path: "/v1/runs/{run}/memctx", op: "getMemCtx", tag: "runs", auth: true, summary: "A run's memctx record: what went into the prompt, what was left out and why", resp: journal.MemCtx{}, errors: []int{404}, handle: (*Server).getMemCtx},
	{method: "POST", path: "/v1/runs/{run}/replay", op: "replayRun", tag: "runs", auth: true, summary: "Rebuild a run's prompt from its record, and a counterfactual without chosen parts", body: ReplayBody{}, resp: Replay{}, errors: []int{404, 409, 415, 422}, handle: (*Server).replay},
}
