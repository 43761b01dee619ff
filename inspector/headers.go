package inspector

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// The Content-Security-Policy of the inspector's responses: no script, no
// source but the page itself, no framing (no clickjacking of the sign-in
// form or the sign-out button). pageCSP is the pages' (their bars are
// inline styles; img-src 'self' for a browser's favicon request);
// loginCSP forbids everything the sign-in page does not need.
const (
	pageCSP  = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"
	loginCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
)

// secure sets the headers every response of the inspector carries, its
// pages, its error pages, the sign-in and sign-out pages and their
// redirects alike: an HTML Content-Type, the policy csp,
// X-Content-Type-Options: nosniff (a browser never reads a page as
// another type) and Cache-Control: no-store (a page holds a tenant's
// memory, a sign-in page the token typed into it: no HTTP cache, the
// browser's or a proxy's, keeps a copy). Before, the sign-in page, the
// refused sign-out and the redirects each lacked some.
func secure(h http.Header, csp string) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

// errorPage writes the inspector's error page of status with title and
// detail, and the headers of secure, with allow as the Allow header when
// set: the 405 of the sign-in and sign-out pages, which were net/http's
// plain text ("method not allowed"), and of a path or method no page
// takes (notFound).
func errorPage(w http.ResponseWriter, status int, title, detail, version, allow string) {
	secure(w.Header(), pageCSP)
	if allow != "" {
		w.Header().Set("Allow", allow)
	}
	var b strings.Builder
	if err := execPage(&b, "error", page{Title: title, Version: version, Links: true, Data: server.Problem{Title: title, Status: status, Detail: detail}}); err != nil {
		http.Error(w, "render failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	io.WriteString(w, b.String())
}

// notFound answers a request of the inspector's mux that no page takes:
// a 405 error page naming GET and HEAD for a path a page takes with
// another method (a POST with a bearer token), else a 404 error page
// naming the path, and the page it probably meant when the path is a
// page's with a trailing slash ("/ui/threads/t1/").
func notFound(mux *http.ServeMux, version string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The path as sent, escaped: decoded, "/ui/threads/%2e%2e/" read
		// as "/ui/threads/../", which the mux cleans to the index page's
		// path (a GET was a 405, "the pages take GET and HEAD").
		path := r.URL.EscapedPath()
		if isPage(mux, path) {
			errorPage(w, http.StatusMethodNotAllowed, "Method not allowed", r.Method+" "+path+": the inspector's pages take GET and HEAD", version, "GET, HEAD")
			return
		}
		detail := "there is no inspector page at " + path
		if p := strings.TrimSuffix(path, "/"); p != path && isPageOfValidIDs(mux, p) {
			detail += "; did you mean " + p + "?"
		}
		errorPage(w, http.StatusNotFound, "Not found", detail, version, "")
	}
}

// isPage reports whether a GET of path, escaped as sent, is taken by a
// page of mux (and not by the catch-all notFound, pattern "/ui/").
func isPage(mux *http.ServeMux, path string) bool {
	return pageOf(mux, path) != ""
}

// pageOf is the pattern of the page of mux that takes a GET of path, the
// path escaped as sent ("GET /ui/threads/{thread}"), or "" when none does
// (the catch-all notFound's "/ui/" included). Escaped, its "%3F" is no
// query (GET /ui/threads/a%3Fb/ was a 405, read as /ui/threads/a) and its
// "%2e%2e" no dot segment for the mux to clean away.
func pageOf(mux *http.ServeMux, path string) string {
	r, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return ""
	}
	if _, pattern := mux.Handler(r); pattern != "/ui/" {
		return pattern
	}
	return ""
}

// isPageOfValidIDs reports whether path, escaped as sent, is a page's
// (isPage) whose ids, the segments its pattern's wildcards take, decoded,
// are ids the engine could store (engine.ValidID, as the pages check
// them): the 404's "did you mean" named "/ui/threads/a b" for
// "/ui/threads/a%20b/", a page no id can have.
func isPageOfValidIDs(mux *http.ServeMux, path string) bool {
	pattern := pageOf(mux, path)
	if pattern == "" {
		return false
	}
	_, patternPath, _ := strings.Cut(pattern, " ")
	want, got := strings.Split(patternPath, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i, seg := range want {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		if id, err := url.PathUnescape(got[i]); err != nil || !engine.ValidID(id) {
			return false
		}
	}
	return true
}
