package inspector

import (
	"io"
	"net/http"
	"strings"

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
// plain text ("method not allowed").
func errorPage(w http.ResponseWriter, status int, title, detail, version, allow string) {
	secure(w.Header(), pageCSP)
	if allow != "" {
		w.Header().Set("Allow", allow)
	}
	var b strings.Builder
	if err := pages["error"].ExecuteTemplate(&b, "layout", page{Title: title, Version: version, Links: true, Data: server.Problem{Title: title, Status: status, Detail: detail}}); err != nil {
		http.Error(w, "render failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	io.WriteString(w, b.String())
}
