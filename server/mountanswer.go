package server

import (
	"net/http"
	"time"
)

// mountAnswer bounds the writes of a mounted handler's answer (an
// inspector page, an /mcp answer or event) as answerDeadline bounds an API
// route's: each write, and each flush, must reach the client within
// Config.AnswerTimeout of its start, or the connection is closed. An
// inspector page is one write, so its whole page is bounded; an /mcp event
// stream (long-lived by design) may wait between its events for as long as
// it likes, each event bounded. Before, a client that stopped reading held
// the handler, and the answer in memory, for ever: five inspector and five
// /mcp readers were still connected 7 minutes on, the server's RSS from
// 184 MB to 1.5 GB.
type mountAnswer struct {
	*statusWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *Server) mountAnswer(sw *statusWriter) *mountAnswer {
	return &mountAnswer{statusWriter: sw, rc: http.NewResponseController(sw), timeout: s.cfg.AnswerTimeout}
}

func (w *mountAnswer) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *mountAnswer) Write(b []byte) (int, error) {
	w.arm()
	return w.statusWriter.Write(b)
}

// Flush lets streaming handlers (MCP's SSE) flush, within the deadline.
func (w *mountAnswer) Flush() {
	w.arm()
	w.statusWriter.Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *mountAnswer) Unwrap() http.ResponseWriter { return w.statusWriter }
