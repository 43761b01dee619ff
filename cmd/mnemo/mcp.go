package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// runMCP is `mnemo mcp`: an MCP server over standard input and output for
// desktop clients (Claude Desktop, Claude Code, Cursor). It opens the data
// directory itself (it fails at once when mnemo serve holds it: point the
// client at the server's /mcp instead). Logs go to standard error.
func (m *Main) runMCP(ctx context.Context, args []string) error {
	fs := m.flags("mcp", "")
	resources := fs.String("resources", "", "comma-separated resource ids the client may touch (default: all)")
	allowErase := fs.Bool("allow-erase", false, "let the memory_delete tool erase (default: refused)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return m.usagef(fs, "mcp takes no arguments")
	}
	p := &server.Principal{Name: "stdio", All: true, Erase: *allowErase, EraseHint: "this client may not erase; start mnemo mcp with --allow-erase"}
	if *resources != "" {
		p.All, p.Resources = false, map[string]bool{}
		for _, r := range strings.Split(*resources, ",") {
			if r = strings.TrimSpace(r); !engine.ValidID(r) {
				return m.usagef(fs, "--resources: %q is not a valid resource id", r)
			}
			p.Resources[r] = true
		}
	}
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := mcpserver.New(e, p, mcpserver.Options{Version: version(), Logger: log})
	t := &mcp.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return e.Close()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
