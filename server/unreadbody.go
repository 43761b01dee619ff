package server

import (
	"io"
	"net/http"
	"sync/atomic"
)

// trackedBody is a request body that records whether it was read to its
// end (io.EOF).
type trackedBody struct {
	io.ReadCloser
	ended atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.ended.Store(true)
	}
	return n, err
}

// trackBody wraps r's body, when it has one, for closeUnread, and returns
// the wrapper (nil for a request without a body).
func trackBody(r *http.Request) *trackedBody {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	b := &trackedBody{ReadCloser: r.Body}
	r.Body = b
	return b
}

// closeUnread marks an answer begun before the request's body was read to
// its end with Connection: close. Such an answer does not depend on the
// body (a refused token, a DELETE's 403, a route that takes none), and
// net/http would otherwise read up to 256 KiB of what is left of the body
// before sending it, to keep the connection: a body trickled in a byte a
// second held a DELETE's 403 until the body timeout (a minute). Closing
// the connection instead answers at once; what the client still sends is
// not read.
func (w *statusWriter) closeUnread() {
	if w.body != nil && !w.body.ended.Load() {
		w.Header().Set("Connection", "close")
	}
}
