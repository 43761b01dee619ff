package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// maxMCPLine bounds one line of `mnemo mcp`'s input, as the go-sdk bounds
// a frame (mcp.DefaultMaxLineLength, 16 MiB).
const maxMCPLine = mcp.DefaultMaxLineLength

// mcpLines is the standard input of `mnemo mcp` as the go-sdk reads it:
// one JSON-RPC message a line, without the lines the SDK cannot read. Its
// stdio connection ends the session at the first frame it cannot decode
// (a malformed line, trailing data, a message that is not JSON-RPC 2.0,
// an id that is an object, an empty batch), so one bad line from a client
// took the memory away for the rest of the session. Such a line is
// answered on out (badLine) and dropped, and the next one is read. A line
// over maxMCPLine is skipped too: answered -32600 with the request's id
// (found while the line is skipped, lineIDScan; null when it has none a
// client can match, as before for every such line), or, a notification,
// not answered but logged (a warning on log).
type mcpLines struct {
	r    *bufio.Reader
	out  io.Writer    // shared with the SDK's writes: a lockedWriter
	log  *slog.Logger // an over-long notification's warning
	rest []byte       // the unread part of a line passed on
	err  error        // the input's error, returned once rest is read
}

func newMCPLines(in io.Reader, out io.Writer, log *slog.Logger) *mcpLines {
	return &mcpLines{r: bufio.NewReaderSize(in, 64<<10), out: out, log: log}
}

func (l *mcpLines) Read(p []byte) (int, error) {
	for len(l.rest) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		line, long, err := l.readLine()
		l.err = err
		// A line's leading UTF-8 byte-order mark (a client's file saved
		// "UTF-8 with BOM") is read through, as /mcp and /v1 read a body's:
		// it was "the line is not one JSON value", the mark unnamed.
		n, _ := jsonkey.ByteOrderMark(line)
		line = line[n:]
		switch {
		case long != nil:
			l.tooLong(long)
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if a := badLine(line); a != nil {
				l.answer(a)
			} else {
				l.rest = line
			}
		}
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// readLine reads up to and including the next newline; a line over
// maxMCPLine is read to its end and discarded, scanned for its id (long).
func (l *mcpLines) readLine() (line []byte, long *lineIDScan, err error) {
	for {
		chunk, err := l.r.ReadSlice('\n')
		if long == nil && len(line)+len(chunk) > maxMCPLine {
			long = &lineIDScan{}
			long.feed(line)
			line = nil
		}
		if long != nil {
			long.feed(chunk)
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

// tooLong answers a line over maxMCPLine: -32600 with its id (null when
// it has none that is a string or number of up to maxScanValue bytes); a
// notification gets no answer (JSON-RPC 2.0) and is logged instead.
func (l *mcpLines) tooLong(s *lineIDScan) {
	msg := fmt.Sprintf("Invalid Request: the line is over %d bytes", maxMCPLine)
	if s.notification() {
		l.log.Warn("mcp: a notification was dropped: the line is over the bound", "maxBytes", maxMCPLine)
		return
	}
	l.answer(rpcError(s.id, jsonrpc.CodeInvalidRequest, msg))
}

func (l *mcpLines) answer(b []byte) { _, _ = l.out.Write(b) }

// badLine is the JSON-RPC error answering a line the SDK could not read,
// or nil for a line it can: -32700 (parse error, id null) for a line
// that begins with a UTF-16 byte-order mark (naming it), for a line
// nested deeper than the SDK reads (mcpserver.MaxDepth, 1,000 levels;
// mcpserver.DepthProblem, as /mcp of mnemo serve answers such a body) and
// for a line that is not one JSON value (naming the byte where data after
// its value begins: "unexpected data after the JSON value at byte N"); -32600 (invalid request, with the
// line's id when it is a string or a number, else null) for text that is
// not valid UTF-8 or escapes half a surrogate pair (importer.CheckJSONText:
// encoding/json would hand the tools U+FFFD, and memory_append store it;
// /mcp of mnemo serve refuses such a body alike) and for a message or
// batch that is not JSON-RPC 2.0 (mcpserver.FrameProblem, as /mcp
// answers such a body).
func badLine(line []byte) []byte {
	if _, utf16 := jsonkey.ByteOrderMark(line); utf16 != "" {
		return rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is UTF-16 (it begins with the byte-order mark "+utf16+"): send JSON as UTF-8")
	}
	if p := mcpserver.DepthProblem(line, "line"); p != "" {
		return rpcError(nil, jsonrpc.CodeParseError, "Parse error: "+p)
	}
	if !json.Valid(line) {
		msg := "Parse error: the line is not one JSON value"
		if err := jsonkey.Trailing(line); err != nil {
			msg += ": " + err.Error() // where a "}" too many, or a second message, begins
		}
		return rpcError(nil, jsonrpc.CodeParseError, msg)
	}
	id := mcpserver.MessageID(line)
	if err := importer.CheckJSONText(line); err != nil {
		return rpcError(id, jsonrpc.CodeInvalidRequest, "Invalid Request: the message is "+err.Error())
	}
	if p := mcpserver.FrameProblem(line, "line"); p != "" {
		return rpcError(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+p)
	}
	return nil
}

// rpcError is a JSON-RPC 2.0 error response line (mcpserver.ErrorAnswer
// and a newline); a nil id is null.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	return append(mcpserver.ErrorAnswer(id, code, msg), '\n')
}

// lockedWriter makes each Write whole on a writer that the SDK and
// mcpLines share: the SDK writes a message a call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
