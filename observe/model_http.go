package observe

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// DefaultMaxResponseBytes bounds the HTTP body of one answer of the model
// endpoint (OpenAIConfig.MaxResponseBytes): 8 MiB, far above any chat
// completion an observer asks for.
const DefaultMaxResponseBytes = 8 << 20

// ErrResponseTooLarge is matched (through a *ResponseTooLargeError) by the
// error OpenAIModel.Complete returns when the endpoint's answer body is
// larger than OpenAIConfig.MaxResponseBytes. It is not retried.
var ErrResponseTooLarge = errors.New("observe: the model endpoint's answer is too large")

// ResponseTooLargeError is an answer body that passed Limit bytes; at most
// Limit bytes of it were read.
type ResponseTooLargeError struct {
	// Limit is OpenAIConfig.MaxResponseBytes, in bytes.
	Limit int64
}

// Error implements error.
func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("observe: the model endpoint's answer is larger than %d bytes (OpenAIConfig.MaxResponseBytes)", e.Limit)
}

// Unwrap returns ErrResponseTooLarge.
func (e *ResponseTooLargeError) Unwrap() error { return ErrResponseTooLarge }

// ErrNotJSON is matched (through a *NotJSONError) by the error
// OpenAIModel.Complete returns when the endpoint answers a successful status
// with a body that is not JSON (an HTML page: a wrong base URL, a proxy's
// login page). It is not retried.
var ErrNotJSON = errors.New("observe: the model endpoint answered non-JSON")

// NotJSONError is a successful answer whose body does not start as JSON:
// its Status, ContentType and first bytes (Start, up to 64).
type NotJSONError struct {
	// Status is the answer's HTTP status code (2xx).
	Status int
	// ContentType is the answer's Content-Type header.
	ContentType string
	// Start is the body's first bytes (at most 64), for the message.
	Start string
}

// Error implements error.
func (e *NotJSONError) Error() string {
	return fmt.Sprintf("observe: the model endpoint answered non-JSON (HTTP %d, content type %q, starting %q); is the base URL an OpenAI-compatible API (…/v1)?",
		e.Status, e.ContentType, e.Start)
}

// Unwrap returns ErrNotJSON.
func (e *NotJSONError) Unwrap() error { return ErrNotJSON }

// boundedClient returns a copy of c (http.DefaultClient when nil) whose
// answers are checked by checkedTransport.
func boundedClient(c *http.Client, limit int64) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	out := *c
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = checkedTransport{base: base, limit: limit}
	return &out
}

// checkedTransport bounds every answer body to limit bytes and refuses a
// successful answer whose body does not start as JSON (after white space).
type checkedTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(&boundedBody{r: resp.Body, left: t.limit, limit: t.limit})
	resp.Body = struct {
		io.Reader
		io.Closer
	}{br, resp.Body}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, nil
	}
	if err := skipSpace(br); err != nil {
		if err == io.EOF {
			return resp, nil // an empty body: the client's decoder says so
		}
		resp.Body.Close()
		return nil, err
	}
	if first, _ := br.Peek(1); first[0] != '{' && first[0] != '[' {
		start, _ := br.Peek(64)
		resp.Body.Close()
		return nil, &NotJSONError{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Start: string(start)}
	}
	return resp, nil
}

// skipSpace consumes JSON white space from br; it returns nil with a byte
// ready to read, or the read error.
func skipSpace(br *bufio.Reader) error {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return br.UnreadByte()
		}
	}
}

// boundedBody reads r, failing with a *ResponseTooLargeError once more
// than limit bytes come.
type boundedBody struct {
	r           io.Reader
	left, limit int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, &ResponseTooLargeError{Limit: b.limit}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}
