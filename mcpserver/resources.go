package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/server"
)

// Resource URI templates.
const (
	// MemCtxTemplate is a run's memctx record (JSON): what went into the
	// prompt, what was left out and why.
	MemCtxTemplate = "mnemo://runs/{run}/memctx"
	// MessagesTemplate is a page of a thread's messages (JSON
	// server.MessageList, seq order): the newest limit (1 to
	// engine.MaxPageLimit, default engine.DefaultPageLimit) with seq below
	// beforeSeq (default: the latest page), and nextBeforeSeq when older
	// ones exist, the beforeSeq of the page before it. The query is RFC
	// 6570's form-style one: mnemo://threads/t1/messages is the latest
	// page, mnemo://threads/t1/messages?beforeSeq=31&limit=10 the ten
	// before seq 31. An id is percent-encoded as the template expands it
	// (ana%3Awork for ana:work). A parameter that is not an integer, out
	// of range or unknown is an error naming it.
	MessagesTemplate = "mnemo://threads/{thread}/messages{?beforeSeq,limit}"
)

func (h *handlers) addResources(s *mcp.Server) {
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "memctx", URITemplate: MemCtxTemplate, MIMEType: "application/json",
		Description: "The provenance record of a run built with memory_context: recalled turns with scores, the recent window, dropped turns with the reason, observations, working-memory size, prompt hash."}, h.boundedRead(h.readMemCtx))
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "thread-messages", URITemplate: MessagesTemplate, MIMEType: "application/json",
		Description: "Stored turns of a thread, in order, with ids, roles, seqs and times: the latest 100, or with beforeSeq the newest before that seq (limit: how many, 1 to 1000, default 100). nextBeforeSeq, when present, says older turns exist: read the URI again with ?beforeSeq=<nextBeforeSeq> to page back (memory_search finds old turns by content)."}, h.boundedRead(h.readMessages))
}

// boundedRead is read with a context that ends after h.timeout, as
// bounded is for a tool: a read that fails once that deadline passed is a
// JSON-RPC internal error saying "Timeout: …".
func (h *handlers) boundedRead(read mcp.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		tctx, cancel := context.WithTimeout(ctx, h.timeout)
		defer cancel()
		res, err := read(tctx, req)
		if err != nil && timedOut(ctx, tctx) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: timeoutText(h.timeout)}
		}
		return res, err
	}
}

// idIn extracts the id between prefix and suffix of uri (its query cut
// off), percent-decoded: a template expands an id's ':' and '@' as %3A
// and %40 (RFC 6570), and the SDK matches only that form.
func idIn(uri, prefix, suffix string) (string, bool) {
	uri, _, _ = strings.Cut(uri, "?")
	if !strings.HasPrefix(uri, prefix) || !strings.HasSuffix(uri, suffix) || len(uri) <= len(prefix)+len(suffix) {
		return "", false
	}
	id, err := url.PathUnescape(uri[len(prefix) : len(uri)-len(suffix)])
	return id, err == nil
}

// pageQuery reads the query of a thread-messages URI (MessagesTemplate):
// the latest page when it has none. An unknown, repeated or non-integer
// parameter, a beforeSeq below 1 or a limit out of 1 to
// engine.MaxPageLimit is a *engine.ValidationError naming it.
func pageQuery(uri string) (engine.PageRequest, error) {
	req := engine.PageRequest{BeforeSeq: 1<<63 - 1}
	_, raw, _ := strings.Cut(uri, "?")
	q, err := url.ParseQuery(raw)
	if err != nil {
		return req, &engine.ValidationError{Index: -1, Field: "query", Rule: err.Error()}
	}
	for _, k := range slices.Sorted(maps.Keys(q)) { // the first bad one in name order
		vs := q[k]
		bad := func(rule string) error { return &engine.ValidationError{Index: -1, Field: k, Rule: rule} }
		if k != "beforeSeq" && k != "limit" {
			return req, bad("unknown parameter: the thread-messages resource takes beforeSeq and limit")
		}
		if len(vs) != 1 {
			return req, bad("must be given once")
		}
		n, err := strconv.ParseInt(vs[0], 10, 64)
		switch {
		case err != nil:
			return req, bad("must be an integer")
		case k == "limit" && (n < 1 || n > engine.MaxPageLimit):
			return req, bad(fmt.Sprintf("must be 1 to %d, got %d", engine.MaxPageLimit, n))
		case k == "limit":
			req.Limit = int(n)
		case n < 1:
			return req, bad(fmt.Sprintf("must be >= 1, got %d", n))
		default:
			req.BeforeSeq = n
		}
	}
	return req, nil
}

// jsonResource is a resource read answering v as indented JSON, "<", ">"
// and "&" as they are: json.MarshalIndent wrote a stored tool call's
// arguments {"q":"<b>"} as {"q":"\u003cb\u003e"} to the model reading it.
func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

func (h *handlers) readMemCtx(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	run, ok := idIn(uri, "mnemo://runs/", "/memctx")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rec, err := h.t.Run(ctx, run)
	if err != nil && prunedDetail(h.t.Describe(err)) {
		// Tenant.Run says a run of the caller's resources was pruned, as
		// GET /v1/runs/{run}/memctx does; the SDK's "Resource not found"
		// alone read as a wrong id (walk59 L1).
		return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found: " + h.t.Describe(err).Detail,
			Data: json.RawMessage(fmt.Sprintf(`{"uri":%q}`, uri))}
	}
	if err != nil {
		return nil, h.notFound(ctx, uri, err)
	}
	return jsonResource(uri, memCtxShown(rec))
}

// prunedDetail reports whether p is Tenant.Run's 404 for a run of the
// caller's resources whose record was pruned or never written
// (journal.RunPrunedError: RunPrunedDetail, or RunDispatchedDetail and
// the run's dispatches after it) or whose thread was erased
// (journal.RunErasedError).
func prunedDetail(p server.Problem) bool {
	return p.Status == http.StatusNotFound && (strings.HasSuffix(p.Detail, journal.RunPrunedDetail) ||
		strings.Contains(p.Detail, ": "+journal.RunDispatchedDetail+"; ") || strings.HasSuffix(p.Detail, journal.RunErasedDetail))
}

// memCtxShown is a memctx record as the resource gives it to the model
// reading it: the stored text it holds (the query, each listed turn's
// preview, an unsettled call's id) as memory_context gives a turn, as a
// prompt shows it (render.Message: marker-shaped text quoted, "[quoted:
// recalled …", bidirectional, tag and control characters as "\u202e");
// the rest as recorded. GET /v1/runs/{run}/memctx gives the record as
// stored.
func memCtxShown(rec *journal.MemCtx) *journal.MemCtx {
	out := *rec
	out.Query = render.Message(rec.Query)
	out.Recalled, out.Recent = refsShown(rec.Recalled), refsShown(rec.Recent)
	out.Dropped, out.Unsettled = refsShown(rec.Dropped), refsShown(rec.Unsettled)
	return &out
}

// refsShown is refs with each preview and call id rendered (memCtxShown);
// nil for nil.
func refsShown(refs []journal.Ref) []journal.Ref {
	if refs == nil {
		return nil
	}
	out := make([]journal.Ref, len(refs))
	for i, r := range refs {
		r.Preview, r.ToolCallID = render.Message(r.Preview), render.Message(r.ToolCallID)
		out[i] = r
	}
	return out
}

func (h *handlers) readMessages(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	thread, ok := idIn(uri, "mnemo://threads/", "/messages")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	th, err := h.t.Thread(ctx, thread)
	if err != nil {
		return nil, h.notFound(ctx, uri, err)
	}
	page, err := pageQuery(uri)
	if err != nil {
		return nil, h.failRead(ctx, uri, err)
	}
	pg, err := h.t.Engine.MessagesPage(ctx, th.ID, page)
	if err != nil {
		return nil, h.failRead(ctx, uri, err)
	}
	return jsonResource(uri, server.MessageList{Messages: pg.Messages, NextBeforeSeq: pg.NextBeforeSeq})
}

// notFound answers a lookup failure: ResourceNotFound for a missing or
// foreign object, the problem text otherwise.
func (h *handlers) notFound(ctx context.Context, uri string, err error) error {
	if h.t.Describe(err).Status == 404 {
		return mcp.ResourceNotFoundError(uri)
	}
	return h.failRead(ctx, uri, err)
}
