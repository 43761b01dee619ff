package server

import (
	"io"
	"net/http"
	"sync/atomic"
)

// trackedBody is a request body that records how much of it was read and
// whether it was read to its end (io.EOF).
type trackedBody struct {
	io.ReadCloser
	ended atomic.Bool
	read  atomic.Int64
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	if err == io.EOF {
		b.ended.Store(true)
	}
	return n, err
}

// trackBody returns r, or, when it has a body, a shallow copy of r whose
// body is wrapped for closeUnread, and the wrapper (nil for a request
// without a body). r itself is left as net/http made it: its server looks
// at the request's own body once the handler is done (an unread body's
// close, Expect: 100-continue) to decide how the connection ends
// (bodyLimit).
func trackBody(r *http.Request) (*http.Request, *trackedBody) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return r, nil
	}
	b := &trackedBody{ReadCloser: r.Body}
	r = r.WithContext(r.Context())
	r.Body = b
	return r, b
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
