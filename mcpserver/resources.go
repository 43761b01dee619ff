package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// Resource URI templates.
const (
	// MemCtxTemplate is a run's memctx record (JSON): what went into the
	// prompt, what was left out and why.
	MemCtxTemplate = "mnemo://runs/{run}/memctx"
	// MessagesTemplate is a thread's latest engine.DefaultPageLimit
	// messages (JSON, seq order), with nextBeforeSeq when older ones exist
	// (GET /v1/threads/{thread}/messages?beforeSeq=N pages back).
	MessagesTemplate = "mnemo://threads/{thread}/messages"
)

func (h *handlers) addResources(s *mcp.Server) {
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "memctx", URITemplate: MemCtxTemplate, MIMEType: "application/json",
		Description: "The provenance record of a run built with memory_context: recalled turns with scores, the recent window, dropped turns with the reason, observations, working-memory size, prompt hash."}, h.readMemCtx)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "thread-messages", URITemplate: MessagesTemplate, MIMEType: "application/json",
		Description: "The latest 100 stored turns of a thread, in order, with ids, roles, seqs and times; nextBeforeSeq, when present, says older turns exist before that seq (the HTTP API's GET /v1/threads/{thread}/messages?beforeSeq=N&limit=M pages back; memory_search finds old turns by content)."}, h.readMessages)
}

// idIn extracts the id between prefix and suffix of uri.
func idIn(uri, prefix, suffix string) (string, bool) {
	if !strings.HasPrefix(uri, prefix) || !strings.HasSuffix(uri, suffix) || len(uri) <= len(prefix)+len(suffix) {
		return "", false
	}
	return uri[len(prefix) : len(uri)-len(suffix)], true
}

func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (h *handlers) readMemCtx(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	run, ok := idIn(uri, "mnemo://runs/", "/memctx")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rec, err := h.t.Run(ctx, run)
	if err != nil {
		return nil, h.notFound(uri, err)
	}
	return jsonResource(uri, rec)
}

func (h *handlers) readMessages(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	thread, ok := idIn(uri, "mnemo://threads/", "/messages")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	th, err := h.t.Thread(ctx, thread)
	if err != nil {
		return nil, h.notFound(uri, err)
	}
	pg, err := h.t.Engine.MessagesPage(ctx, th.ID, engine.PageRequest{BeforeSeq: 1<<63 - 1})
	if err != nil {
		return nil, h.fail(err)
	}
	return jsonResource(uri, server.MessageList{Messages: pg.Messages, NextBeforeSeq: pg.NextBeforeSeq})
}

// notFound answers a lookup failure: ResourceNotFound for a missing or
// foreign object, the problem text otherwise.
func (h *handlers) notFound(uri string, err error) error {
	if h.t.Describe(err).Status == 404 {
		return mcp.ResourceNotFoundError(uri)
	}
	return h.fail(err)
}
