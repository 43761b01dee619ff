package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// MCPCommand is `mnemo mcp`: serve MCP over stdin/stdout (tools
// memory_append, memory_search, memory_context, working_memory_*,
// memory_delete). Like every command it embeds Main: the process environment
// and the global flags.
type MCPCommand struct{ *Main }

// Run is `mnemo mcp`: an MCP server over standard input and output for
// desktop clients (Claude Desktop, Claude Code, Cursor). It opens the data
// directory itself (it fails at once when mnemo serve holds it: point the
// client at the server's /mcp instead) with its stored configuration, the
// observer included (mnemo.json's observe section: background and
// syncOnLoad observe as under mnemo serve). Logs go to standard error.
func (c *MCPCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("mcp", "")
	resources := fs.String("resources", "", "comma-separated resource ids the client may touch (default: all)")
	allowErase := fs.Bool("allow-erase", false, "let the memory_delete tool erase (default: refused)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return c.noArgs(fs, "")
	}
	if *resources == "" && flagGiven(fs, "resources") {
		// Read as left out, a script's unset "$R" gave the client every resource.
		return c.valuef(fs, "--resources is empty: give resource ids or leave the flag out (every resource)")
	}
	// Worded for stdio, which has no token ("…or the token has one
	// resource", the HTTP server's words, named none the client had).
	p := &server.Principal{Name: "stdio", All: true, Erase: *allowErase, EraseHint: "this client may not erase; start mnemo mcp with --allow-erase",
		ResourceHint: "resourceId is required unless the thread is a stored one: this client may touch every resource (mnemo mcp without --resources); name the one to use"}
	p.WorkingMemoryOffHint = mcpWorkingMemoryOff(c.Dir)
	if *resources != "" {
		p.ResourceHint = "resourceId is required unless the thread is a stored one of this client's resources or mnemo mcp was started with one (--resources)"
		p.All, p.Resources = false, map[string]bool{}
		for _, r := range strings.Split(*resources, ",") {
			if r = strings.TrimSpace(r); !engine.ValidID(r) {
				return c.valuef(fs, "--resources: a resource id %s; got %s", engine.IDRule, engine.IDFault(r))
			} else if !engine.ValidNewID(r) {
				// As a token file's resources (server.ParseTokens): every
				// write of the client would be refused.
				why := `"." or ".."`
				if strings.HasPrefix(r, engine.TombstonePrefix) {
					why = `an id beginning with "` + engine.TombstonePrefix + `" (reserved for erased owners)`
				}
				return c.valuef(fs, `--resources: %q cannot be a client's resource: nothing new may be stored under %s; `+
					"leave --resources out (every resource) to read and erase what a data directory written before holds under it", r, why)
			}
			p.Resources[r] = true
		}
		p.OutsideHint = "is outside this client's resources (mnemo mcp --resources " + strings.Join(slices.Sorted(maps.Keys(p.Resources)), ",") + "): start mnemo mcp with it in --resources, or without --resources for every resource"
	}
	// The engine's warnings and the MCP server's go to standard error
	// (standard output is the protocol's); the engine's went nowhere before.
	log := slog.New(stopNotError{slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})})
	events := startEventLog(log) // an expiry or a quota's eviction is logged (a warning)
	defer events.Stop()
	e, err := c.openService(ctx, log, events.ch) // the observer runs as under mnemo serve
	if err != nil {
		return err
	}
	defer e.Close()
	s := mcpserver.New(e, p, mcpserver.Options{Version: version(), Logger: log})
	out := &lockedWriter{w: c.Stdout}
	in := newMCPLines(c.Stdin, out, log) // a bad line is answered, not the session's end
	t := drainingTransport{&mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return e.Close()
}

// drainingTransport makes end of input mean "no more requests", not "hang
// up": the go-sdk's connection stops writing and cancels in-flight handlers
// as soon as its reader reports io.EOF, so a client that writes its requests
// and closes standard input at once (`printf ... | mnemo mcp`) would get only
// the first answer. Its connection holds back the EOF until every request
// read has been answered (or ctx ends, or the connection is closed).
type drainingTransport struct{ mcp.Transport }

func (t drainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainingConn{Connection: c, pending: map[jsonrpc.ID]bool{}, idle: make(chan struct{}), closed: make(chan struct{})}, nil
}

// drainingConn tracks the ids of the calls read and not yet answered; idle
// is closed (and replaced when a call arrives) while there are none.
type drainingConn struct {
	mcp.Connection
	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool
	idle      chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		c.mu.Lock()
		idle := c.idle
		if len(c.pending) == 0 {
			idle = nil
		}
		c.mu.Unlock()
		if idle != nil {
			select {
			case <-idle:
			case <-ctx.Done():
			case <-c.closed:
			}
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		if len(c.pending) == 0 {
			c.idle = make(chan struct{})
		}
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return msg, err
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending[resp.ID] {
			delete(c.pending, resp.ID)
			if len(c.pending) == 0 {
				close(c.idle)
			}
		}
		c.mu.Unlock()
	}
	return err
}

func (c *drainingConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpWorkingMemoryOff is mnemo mcp's answer when no working memory is
// configured: mcp takes no --config, so it names what it reads, the data
// directory's mnemo.json (storedMemoryConfig), and the restart that
// applies it; on Postgres (dir ""), which keeps no mnemo.json, the
// configuration mnemo serve --config stores in the database.
func mcpWorkingMemoryOff(dir string) string {
	if dir == "" {
		return `this mnemo mcp has no working memory configured; to turn it on, run mnemo --db URL serve --config FILE once, FILE's "workingMemory" member ` +
			"giving a schema, schemaFile or template (docs/serve.md#mnemo-json): the database keeps it, and mnemo mcp uses it once restarted"
	}
	return fmt.Sprintf(`this mnemo mcp has no working memory configured; to turn it on, write a "workingMemory" member giving a schema, schemaFile or template `+
		"into %s, the data directory's configuration (docs/serve.md#mnemo-json), and restart mnemo mcp", absPath(filepath.Join(dir, StoredConfigFile)))
}

// absPath is p made absolute (a desktop client starts mnemo mcp in a
// directory its user does not see), or p when that fails.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
