package inspector

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/server"
)

var loginPage = template.Must(template.New("login").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sign in · mnemo inspector</title>
<style>body{font:14px system-ui,sans-serif;max-width:420px;margin:80px auto;color:#1d2330}input{width:100%;padding:8px;margin:8px 0;font:inherit}button{padding:8px 16px;font:inherit}</style></head>
<body><h1>mnemo inspector</h1><p>This server has a token file. Paste a token to see its resources. This browser stays signed in until you sign out or the sign-in expires{{with .TTL}} ({{.}}){{end}}; the token itself is not kept.</p>
{{with .Msg}}<p role="alert" style="color:#b3261e">{{.}}</p>{{end}}
<form method="post" action="/ui/login"><input type="hidden" name="next" value="{{.Next}}"><input type="password" name="token" autocomplete="current-password" placeholder="token" required><button type="submit">Sign in</button></form></body></html>`))

// Login returns the sign-in page for a server with a token file, to mount
// without authentication (server.Config.Public) at LoginPath: GET shows a
// form (HEAD answers as GET, without it), POST checks the token against
// tokens, starts a session of its principal in sessions (the store
// server.Config.Sessions authenticates by) and stores the session's id,
// never the token, in the server.SessionCookie cookie (Path /ui/,
// HttpOnly, SameSite=Strict, Max-Age the session's TTL: 12 hours by
// default, which the form states), then goes to the page asked for: the
// "next" parameter (query of the GET, field of the POST) when it is a
// path of the inspector (never another site), else /ui/. A GET whose
// query the other pages would refuse (an unknown, repeated or empty
// parameter, a next that is not such a path) gets the form with a 400
// naming the parameter, and next /ui/. An unknown token gets the form
// again with a 401 that says so; a POST from another site (an Origin
// header not the server's own, or Sec-Fetch-Site cross-site) a 403, so no
// page can sign a browser in under the page's token (login CSRF). A
// sign-in that sends the cookie of an earlier one ends that session,
// which the new cookie replaces in the browser (copies of it included).
// The cookie authenticates the inspector's pages (GET) only, never a
// write.
// With nil tokens (no token file: every request is the operator's) a
// POST sets no cookie and goes to next; with tokens and nil sessions it
// is a 500 that says the server keeps no sessions.
//
// Failed sign-ins count in limiter by the client's address, as unknown
// bearer tokens do on the API (server.AuthLimiter): past its burst, a
// sign-in from that address is answered the form with a 429, a
// Retry-After header and a message saying when to try again, its token
// not checked. Give it the server's Config.AuthLimiter so that the form
// and the API share one budget; nil means a limiter of its own with the
// defaults, logging to slog.Default().
func Login(tokens *server.Tokens, sessions *server.Sessions, limiter *server.AuthLimiter) http.Handler {
	if limiter == nil {
		limiter, _ = server.NewAuthLimiter(server.AuthLimitOptions{}) // the defaults: no error
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			next, err := loginQuery(r)
			if err != nil {
				loginForm(w, sessions, http.StatusBadRequest, server.Describe(err).Detail, "/ui/")
				return
			}
			loginForm(w, sessions, http.StatusOK, "", next)
		case http.MethodPost:
			loginPost(w, r, tokens, sessions, limiter)
		default:
			errorPage(w, http.StatusMethodNotAllowed, "Method not allowed", r.Method+" "+r.URL.Path+": the sign-in page takes GET, HEAD and POST", "", "GET, HEAD, POST")
		}
	})
}

// loginPost checks a sign-in's origin and token, then starts its session,
// sets the cookie and sends the browser to the page it asked for.
func loginPost(w http.ResponseWriter, r *http.Request, tokens *server.Tokens, sessions *server.Sessions, limiter *server.AuthLimiter) {
	next := safeNext(r.PostFormValue("next"))
	if !sameOrigin(r) {
		loginForm(w, sessions, http.StatusForbidden, "This sign-in was sent from another site; sign in from this page.", next)
		return
	}
	tok := r.PostFormValue("token")
	if tok == "" {
		loginForm(w, sessions, http.StatusBadRequest, "Paste a token.", next)
		return
	}
	secure(w.Header(), loginCSP)
	if tokens == nil { // every request is the operator's: nothing to sign in to
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	var te *server.TooManyFailuresError
	if err := limiter.Check(r); errors.As(err, &te) {
		w.Header().Set("Retry-After", strconv.Itoa(server.RetryAfter(te.Wait)))
		loginForm(w, sessions, http.StatusTooManyRequests, "Too many failed sign-ins from your address: try again in "+spelledDuration(time.Duration(server.RetryAfter(te.Wait))*time.Second)+".", next)
		return
	}
	p, ok := tokens.Lookup(tok)
	if !ok {
		limiter.Fail(r)
		loginForm(w, sessions, http.StatusUnauthorized, "That token is not in the server's token file.", next)
		return
	}
	if sessions == nil {
		loginForm(w, sessions, http.StatusInternalServerError, "This server keeps no sign-in sessions: send Authorization: Bearer instead.", next)
		return
	}
	if c, err := r.Cookie(server.SessionCookie); err == nil {
		sessions.End(c.Value) // the browser's previous sign-in, which its new cookie replaces
	}
	id := sessions.Start(p)
	http.SetCookie(w, sessionCookie(r, id, int(sessions.TTL()/time.Second)))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// safeNext is next when it is a local path of the inspector (localNext),
// else "/ui/": the sign-in never sends a browser to another site (open
// redirect) nor out of the inspector.
func safeNext(next string) string {
	if !localNext(next) {
		return "/ui/"
	}
	return next
}

// localNext reports whether next is a same-origin path of the inspector:
// it starts with "/ui/" (so no scheme, no "//host"), holds no backslash or
// control byte a browser might read otherwise, and no "." or ".." segment,
// escaped or not ("/ui/../v1/…", "/ui/%2e%2e/…": a browser resolves them,
// and http.Redirect cleans the first, out of /ui/), nor one in a fragment
// that no query precedes ("/ui/x#/../../v1/…": http.Redirect cleans all
// of next before its "?", so that went to /v1/…).
func localNext(next string) bool {
	if !strings.HasPrefix(next, "/ui/") || strings.ContainsAny(next, "\\") {
		return false
	}
	for i := 0; i < len(next); i++ {
		if next[i] < 0x20 || next[i] == 0x7f {
			return false
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return false
	}
	cleaned, _, _ := strings.Cut(next, "?")
	return !dotSegment(u.Path) && !dotSegment(cleaned)
}

// dotSegment reports whether path has a "." or ".." segment.
func dotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// sameOrigin reports whether a POST comes from the server's own pages: its
// Origin header, when sent, names the request's host (scheme aside, which
// a TLS-terminating proxy changes); an Origin of "null" passes only with
// Sec-Fetch-Site same-origin, which a browser sends with it for its own
// page under a Referrer-Policy of no-referrer (one a proxy adds; Chromium
// sends "Origin: null" then, and both the sign-in and the sign-out were
// refused as from another site); without an Origin, Sec-Fetch-Site is not
// "cross-site". A client sending neither (curl, old browsers) passes.
func sameOrigin(r *http.Request) bool {
	site := r.Header.Get("Sec-Fetch-Site")
	switch o := r.Header.Get("Origin"); o {
	case "":
		return site != "cross-site"
	case "null":
		return site == "same-origin"
	default:
		u, err := url.Parse(o)
		return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) && (u.Scheme == "http" || u.Scheme == "https")
	}
}

func loginForm(w http.ResponseWriter, sessions *server.Sessions, status int, msg, next string) {
	secure(w.Header(), loginCSP)
	w.WriteHeader(status)
	ttl := ""
	if sessions != nil {
		ttl = spelledDuration(sessions.TTL())
	}
	loginPage.Execute(w, struct{ Msg, Next, TTL string }{msg, next, ttl})
}

// spelledDuration words d for the sign-in page: "12 hours", "1 hour 30
// minutes", "45 seconds"; a duration with a part under a second as Go
// writes it ("1.5s").
func spelledDuration(d time.Duration) string {
	if d <= 0 || d%time.Second != 0 {
		return d.String()
	}
	var parts []string
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}} {
		if n := d / u.d; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, u.name))
			if n != 1 {
				parts[len(parts)-1] += "s"
			}
			d -= n * u.d
		}
	}
	return strings.Join(parts, " ")
}
