package server

import (
	"io"
	"net/http"
	"time"
)

// bodyDeadline bounds the arrival of r's body, body, to Config.BodyTimeout
// from now: it sets the connection's read deadline and lifts it once the
// body is read to its end, so that a slow handler after it is never
// cancelled by the deadline. A body that failed keeps it: net/http then
// discards the rest of the body before it answers, which the deadline
// bounds too. A request without a body (a GET, MCP's
// stream) gets no deadline: the server reads its connection in the
// background then, and a deadline firing there would cancel the request.
func (s *Server) bodyDeadline(w http.ResponseWriter, r *http.Request, body io.ReadCloser) io.ReadCloser {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return body
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) != nil {
		return body // not a connection that takes deadlines (a test recorder)
	}
	return &deadlineBody{ReadCloser: body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody lifts the read deadline when its body ends (io.EOF).
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}
