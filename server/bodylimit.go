package server

import (
	"io"
	"net/http"
	"strings"
)

// limitBody returns a shallow copy of r whose body is bounded to limit
// bytes (http.MaxBytesReader) and to Config.BodyTimeout (bodyDeadline),
// or, when r's Content-Length is over limit, r and the 413 body-too-large
// problem: such a body is not read at all, and a client that sent
// Expect: 100-continue is never asked for it.
//
// The bound is told to net/http's own ResponseWriter (connWriter), not to
// the statusWriter around it: net/http then knows the handler stopped at
// the limit and ends the connection by its lingering close (FIN, a pause,
// then close), not at once. Before, a 10 MB body with a Content-Length
// got a 413 that the client, still sending, lost to the TCP reset of a
// connection closed with its body unread.
func (s *Server) limitBody(sw *statusWriter, r *http.Request, limit int64) (*http.Request, error) {
	body := s.bodyDeadline(sw, r, http.MaxBytesReader(connWriter(sw), r.Body, limit))
	if r.ContentLength > limit {
		return r, tooLarge(limit)
	}
	r = r.WithContext(r.Context())
	r.Body = body
	return r, nil
}

// tooLarge is the 413 body-too-large problem of a body over limit bytes.
func tooLarge(limit int64) error {
	return errorf(kindTooLarge, "", "the body is over %d bytes, the most the server takes (server.maxBodyBytes); send less in one request", limit)
}

// connWriter is the ResponseWriter that net/http gave the handler, under
// w's wrappers (each an Unwrap, as http.ResponseController follows).
func connWriter(w http.ResponseWriter) http.ResponseWriter {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// lingerFactor bounds what lingerTooLarge discards: what is left of the
// body, up to lingerFactor times Config.MaxBodyBytes (16 MiB by default).
const lingerFactor = 4

// lingerTooLarge reads and discards what is left of the body of a
// request answered 413 (a body over its limit) once the answer has been
// flushed, so that a client that sends its whole body before it reads
// the answer (Python's http.client, a shell's HTTP one-liner) finishes
// sending and reads the 413; closing the connection with the body unread
// reset it instead ("Broken pipe" in the middle of the send, the answer
// lost). RFC 9112 §9.6 asks a server closing a connection to read on
// this way. It stops at the body's end, after lingerFactor times
// Config.MaxBodyBytes, or at Config.BodyTimeout from the body's start
// (the connection's read deadline), whichever is first; net/http then
// closes the connection (the 413 says Connection: close). A client that
// sent Expect: 100-continue and was refused on its Content-Length before
// any of its body was asked for sends none, and nothing is read.
func (s *Server) lingerTooLarge(w *statusWriter, r *http.Request) {
	b := w.body
	if w.status != http.StatusRequestEntityTooLarge || b == nil || b.ended.Load() {
		return
	}
	if b.read.Load() == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return
	}
	if http.NewResponseController(w).Flush() != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, b, lingerFactor*s.cfg.MaxBodyBytes)
}
