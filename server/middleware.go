package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	// logged is set when a route's or mount's handler takes the request
	// (tracked) and so logs it; serveRoot logs the others.
	logged bool
	// body is the request's body as serveRoot wrapped it (nil for a
	// request without one): an answer begun before it was read to its end
	// closes the connection (closeUnread).
	body *trackedBody
}

// tracked is the statusWriter serveRoot made for w, marked as logged by
// the handler that takes it, or a new one for a handler called without
// serveRoot.
func tracked(w http.ResponseWriter) *statusWriter {
	if sw, ok := w.(*statusWriter); ok && !sw.logged {
		sw.logged = true
		return sw
	}
	return &statusWriter{ResponseWriter: w, logged: true}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.closeUnread()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.closeUnread()
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush lets streaming handlers (MCP's SSE) flush through the recorder.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// SessionCookie is the cookie of a browser signed in to the inspector:
// its value is the id of a sign-in session (Sessions), never the bearer
// token. The inspector's sign-in page sets it, Path /ui/, HttpOnly,
// SameSite=Strict. It authenticates GET (and HEAD) requests of
// Config.CookieMount (the inspector's pages) only, while its session
// lives: not the API, not /mcp, never a write. The Authorization header
// wins when both are sent. Its name is the one the cookie had when it
// held the token, so that a sign-in or sign-out replaces such a cookie
// left in a browser.
const SessionCookie = "mnemo_token"

// authenticate returns the request's principal: Operator without a token
// file, else the token's (header, else, when cookie is true, the
// SessionCookie's session's for a read), else an unauthorized problem.
// A request sending the Authorization header more than once is a 400
// naming it (field "Authorization"), whichever token each gives. A
// request that sends an Authorization header is first checked against
// the AuthLimiter (a 429 problem when its address failed too often), and
// counted there when its token is unknown.
func (s *Server) authenticate(r *http.Request, cookie bool) (*Principal, error) {
	if s.cfg.Tokens == nil {
		return Operator, nil
	}
	if n := len(r.Header.Values("Authorization")); n > 1 {
		// net/http's Get gives the first: alice's header then bob's was
		// alice's request, silently.
		return nil, errorf(kindInvalid, "Authorization", "the Authorization header is given %d times; send it once", n)
	}
	var p *Principal
	ok := false
	if r.Header.Get("Authorization") != "" {
		if err := s.cfg.AuthLimiter.Check(r); err != nil {
			return nil, tooManyFailures(err)
		}
		if p, ok = s.cfg.Tokens.Authenticate(r); !ok {
			s.cfg.AuthLimiter.Fail(r)
		}
	}
	if c, err := r.Cookie(SessionCookie); cookie && !ok && isRead(r) && r.Header.Get("Authorization") == "" && err == nil && s.cfg.Sessions != nil {
		// Reads of the inspector only: a cookie must never authorise a
		// write (CSRF), nor give a browser's sign-in the API.
		p, ok = s.cfg.Sessions.Lookup(c.Value)
	}
	if !ok {
		return nil, errorf(kindUnauthorized, "", "send Authorization: Bearer <token> with a token of the server's token file")
	}
	return p, nil
}

// inspectorRefusalHeaders sets on h the security headers of the
// inspector's answers (package inspector's secure) but its Content-Type,
// for the server's own answers under Config.CookieMount: the redirect to
// the sign-in page and the authentication's problems.
func inspectorRefusalHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
}

// isRead reports whether r is a GET or a HEAD, which must be answered
// alike (HEAD without the body): HEAD /ui/ with the cookie was a 401 where
// its GET was a 200.
func isRead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// observe records a finished request in the access log and the metrics.
// The log's path is the path as sent, escaped (r.URL.EscapedPath: a
// request for /v1/threads/a%2Fb logged /v1/threads/a/b, another path),
// without the query. The log's bytes are the body's bytes sent: 0 for a
// HEAD, whose body net/http drops while telling the handler it was
// written (a HEAD of an inspector page logged the page's size).
func (s *Server) observe(r *http.Request, route string, sw *statusWriter, who string, start time.Time) {
	d := time.Since(start)
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	sent := sw.bytes
	if r.Method == http.MethodHead {
		sent = 0
	}
	s.metrics.request(route, sw.status, d)
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "http",
		slog.String("method", r.Method), slog.String("route", route), slog.String("path", r.URL.EscapedPath()),
		slog.Int("status", sw.status), slog.Int64("bytes", sent),
		slog.Float64("ms", float64(d.Microseconds())/1000), slog.String("token", who),
		slog.String("remote", r.RemoteAddr))
}

// wrap turns a route into a handler: authentication, body limit, access
// log, metrics, JSON or problem answer.
func (s *Server) wrap(rt *route) http.Handler {
	name := rt.pattern()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := tracked(w)
		who := "-"
		defer func() { s.observe(r, name, sw, who, start) }()
		p := Operator
		if rt.auth {
			var err error
			if p, err = s.authenticate(r, false); err != nil {
				writeProblem(sw, r, s.log, err)
				return
			}
			who = p.Name
			// An authenticated answer holds a tenant's conversations: no
			// cache, the browser's own included, keeps it (before, only
			// the refusals and the inspector's pages said so).
			sw.Header().Set("Cache-Control", "no-store")
		}
		if err := checkQuery(rt, r); err != nil {
			writeProblem(sw, r, s.log, err)
			return
		}
		r, err := s.limitBody(sw, r, s.cfg.MaxBodyBytes)
		if err != nil {
			writeProblem(sw, r, s.log, err)
			return
		}
		client := r.Context()
		ctx, cancel := context.WithTimeout(client, s.cfg.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		if rt.write != nil {
			rt.write(s, sw, r, p)
			return
		}
		out, err := rt.handle(s, r, p)
		s.answerDeadline(sw)
		if err != nil {
			err = s.timedOut(client, ctx, unreachable(s.cfg.Engine, err))
			writeProblem(sw, r.WithContext(client), s.log, err)
			return
		}
		writeJSON(sw, rt.okStatus(), out)
	})
}

// answerDeadline bounds the encoding and writing of the answer that
// follows, net/http's last flush of it included, to Config.AnswerTimeout
// from now: a client that stopped reading held the handler in its write
// for ever. net/http lifts the deadline once the answer is finished, so
// the connection's next request (a stream) does not inherit it.
func (s *Server) answerDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.AnswerTimeout))
}

// timedOut is err, or the 503 "timeout" problem when the handler's
// context reached Config.RequestTimeout (ctx's deadline) while the
// client's (client) had not ended: the handler's error is then the
// deadline's, however it was worded (a database that stopped answering,
// a slow erasure), and the cause goes to the log.
func (s *Server) timedOut(client, ctx context.Context, err error) error {
	if client.Err() != nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return Timeout(err, s.cfg.RequestTimeout)
}

// Timeout is the 503 "timeout" problem (Describe: "Request timed out",
// with Retry-After on the API) of a request whose work was cut off at a
// timeout of d, err being what the work returned then (kept as its
// cause). A mounted handler that bounds its own work (the inspector's
// pages) answers it as the API routes do past Config.RequestTimeout.
func Timeout(err error, d time.Duration) error {
	return &apiError{kind: kindTimeout, cause: err, detail: fmt.Sprintf(
		"the request did not finish within the server's request timeout (%s); what it committed stays; try again later", d)}
}

// wrapMount authenticates a mounted handler (MCP, inspector) and logs it.
func (s *Server) wrapMount(pattern string, h func(p *Principal) http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := tracked(w)
		who := "-"
		defer func() { s.observe(r, pattern, sw, who, start) }()
		cookie := pattern == s.cfg.CookieMount
		p, err := s.authenticate(r, cookie)
		// Only the mount a sign-in's cookie opens is sent to the sign-in
		// page: for another (/mcp) it would give nothing, and the page
		// refuses a next outside the inspector.
		if err != nil && cookie {
			// Headed as the inspector's own answers, the redirect to its
			// sign-in and the 401 (or 429) problem a client that is no
			// browser gets alike: no body to sniff, frame or keep (the
			// problem had nosniff only).
			inspectorRefusalHeaders(sw.Header())
		}
		if err != nil && classify(err).kind == kindUnauthorized && cookie && s.cfg.LoginPath != "" && isRead(r) && strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(sw, r, s.cfg.LoginPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if err != nil {
			writeProblem(sw, r, s.log, err)
			return
		}
		who = p.Name
		if r, err = s.limitBody(sw, r, s.cfg.MaxBodyBytes); err != nil {
			writeProblem(sw, r, s.log, err)
			return
		}
		if r.Method == http.MethodGet { // a stream: it ends when shutdown begins
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			go func() {
				select {
				case <-s.stopping:
					cancel()
				case <-ctx.Done():
				}
			}()
			r = r.WithContext(ctx)
		}
		h(p).ServeHTTP(s.mountAnswer(sw), r) // mountanswer.go
		s.answerDeadline(sw)                 // net/http's last flush of it
	})
}

// wrapPublic logs a handler that needs no token.
func (s *Server) wrapPublic(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := tracked(w)
		defer func() { s.observe(r, pattern, sw, "-", start) }()
		r, err := s.limitBody(sw, r, 64<<10)
		if err != nil {
			writeProblem(sw, r, s.log, err)
			return
		}
		h.ServeHTTP(sw, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	encodeJSON(w, v)
}

// encodeJSON writes v as JSON, a line, with "<", ">" and "&" as they are:
// an answer's stored text, and the client's text a problem names, reach
// the client as given (encoding/json's HTML escaping writes \u003c). An
// answer is application/json or application/problem+json with nosniff,
// which no browser renders as HTML, so the escaping guards nothing.
func encodeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decodeBody decodes a JSON request body into v: one object with nothing
// after it but whitespace (jsonkey.End: "unexpected data after the JSON
// value at byte N"), no unknown fields (a member is named exactly as its
// field), no object naming a key twice (DuplicateKey), no id given as "",
// within the body limit, valid UTF-8 without a lone surrogate escape
// (importer.CheckJSONText), sent with no Content-Encoding (or identity).
// One leading UTF-8 byte-order mark is skipped (skipBOM).
// Errors name the field at fault.
func decodeBody(r *http.Request, v any) error {
	return decodeBounded(r, v, nil)
}

// decodeBounded is decodeBody for an append's body (AppendBody): with
// limits l, its arrays are counted (TooLong) and its messages' metadata
// measured (MetadataTooLarge) before it is decoded, and one past its
// bound is the engine's error for it.
func decodeBounded(r *http.Request, v any, l *engine.Limits) error {
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		// Read as JSON, a gzip body was "malformed JSON at byte 0".
		return errorf(kindMediaType, "", "Content-Encoding %q is not supported: send the JSON body uncompressed", ce)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return errorf(kindMediaType, "", "Content-Type %q is not JSON", ct)
		}
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return readError(err)
	}
	if data, err = skipBOM(data); err != nil { // bom.go
		return err
	}
	// encoding/json would store U+FFFD in place of invalid text.
	if terr := importer.CheckJSONText(data); terr != nil {
		return errorf(kindInvalid, "", "the body is %v", terr)
	}
	if name := DuplicateKey(data); name != "" {
		return errorf(kindInvalid, name, "%s", duplicateDetail(name))
	}
	if string(bytes.Trim(data, " \t\r\n")) == "null" {
		// Decoded into v it changes nothing: the route then asked
		// for its first required member ("resourceId is required").
		return errorf(kindInvalid, "", "the body must be a JSON object, not null")
	}
	if l != nil {
		if err := TooLong(data, *l, AppendBounds(*l)); err != nil {
			return err
		}
		if err := MetadataTooLarge(data, *l); err != nil {
			return err
		}
	}
	// The scans above are one pass each; the decoding and the member
	// walks below are more, and not worth doing for a client gone.
	if err := r.Context().Err(); err != nil {
		return fmt.Errorf("server: the body was not decoded: %w", err)
	}
	src := bytes.NewReader(data)
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	// A number in metadata or a working-memory patch is kept as
	// written: into float64, 1234567890123456789 was stored as
	// 1234567890123456800.
	dec.UseNumber()
	if err = dec.Decode(v); err == nil {
		if err := jsonkey.End(dec, src); err != nil {
			// "}" or "]" after the object passed dec.More.
			return errorf(kindInvalid, "", "%v", err)
		}
		return memberError(newWalk(r.Context()), data, v)
	}
	return decodeError(newWalk(r.Context()), err, data, v)
}

// memberError is the problem for a body data that decoded into v but
// names a member other than exactly as its field (caseVariant), gives
// an id as "" (EmptyIDMember), or gives null where v's field is not a
// pointer, slice or interface (NullMember: encoding/json leaves such a
// field as it was, so {"recall":{"topK":null}} searched with the default,
// where the MCP tools refuse the null); nil when it does none. Once w's
// context is done (the client gone, the request timeout), the walks give
// up and the error wraps the context's.
func memberError(w *memberWalk, data []byte, v any) error {
	m, f := w.caseVariant(data, reflect.TypeOf(v), "")
	if err := w.stopped(); err != nil {
		return err
	}
	if m != "" {
		return errorf(kindInvalid, m, "%s", caseVariantDetail(m, f))
	}
	if name := EmptyIDMember(data); name != "" {
		return errorf(kindInvalid, name, "%s is empty: give an id or leave it out", name)
	}
	p, d := w.nullMember(data, reflect.TypeOf(v))
	if err := w.stopped(); err != nil {
		return err
	}
	if p != "" {
		return errorf(kindInvalid, p, "%s", d)
	}
	return nil
}

// readError is the problem for a body that could not be read to its end:
// over the limit, too slow, cut off by a client that hung up (499, as a
// hang-up during the work: it was logged 400, a bad request), or broken in
// transit (a bad chunk of a Transfer-Encoding: chunked body, "invalid byte
// in chunk length", was "malformed JSON: …", though no JSON was looked at).
func readError(err error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errorf(kindBodyTimeout, "", "the body did not arrive in time (%s)", err)
	case BodyCutOff(err):
		return errorf(kindClientGone, "", "the client closed the connection before the body's end (%v)", err)
	}
	return errorf(kindInvalid, "", "the request body could not be read: %v; send it again", err)
}

// decodeError is the problem for a body, read whole, that did not decode
// into v; the context's error once w's is done before the member at
// fault is found.
func decodeError(w *memberWalk, err error, data []byte, v any) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		if off, deep := jsonkey.DeeperThan(data, jsonkey.MaxDepth); deep && off < se.Offset {
			// Perhaps well-formed JSON, but encoding/json stopped at the
			// bracket that opens one level too many (se.Offset is past it).
			return errorf(kindInvalid, "", "the body nests arrays or objects deeper than %d levels, the most it may (at byte %d)", jsonkey.MaxDepth, off)
		}
		return errorf(kindInvalid, "", "%s", syntaxDetail(data, jsonkey.SyntaxOffset(se)))
	case errors.Is(err, io.EOF):
		return errorf(kindInvalid, "", "the body is empty; send a JSON object")
	}
	f, ferr := w.badField(data, reflect.TypeOf(v), "")
	if err := w.stopped(); err != nil {
		return err
	}
	if f == "" {
		// No member alone fails: report encoding/json's own words.
		if errors.As(err, &te) {
			return errorf(kindInvalid, te.Field, "%s", typeDetail(te.Field, te))
		}
		return errorf(kindInvalid, "", "malformed JSON: %v", err)
	}
	switch {
	case errors.Is(ferr, errUnknownField):
		return errorf(kindInvalid, f, "%s", bodyUnknownDetail(f, ferr))
	case errors.As(ferr, &te):
		return errorf(kindInvalid, f, "%s", typeDetail(f, te))
	}
	return errorf(kindInvalid, f, "%s is malformed: %v", fieldName(f), ferr)
}

func fieldName(f string) string {
	if f == "" {
		return "the body"
	}
	return fmt.Sprintf("%q", f)
}

// BodyCutOff reports whether err, from reading a request body, says that
// the client closed the connection before the body's end: the connection
// ended short of the Content-Length or of the last chunk
// (io.ErrUnexpectedEOF) or was reset (ECONNRESET). The server answers such
// a request (to nobody) as a client that hung up, status 499, where it
// answered a 400 as if the body were malformed; /mcp does the same.
func BodyCutOff(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
