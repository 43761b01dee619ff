package inspector

import (
	"net"
	"net/http"

	"github.com/mnemo-go/mnemo/server"
)

// sessionCookie is the sign-in cookie holding value (a session id,
// server.Sessions) for maxAge seconds (negative: expire it now, sent as
// Max-Age=0): Path /ui/, HttpOnly, SameSite=Strict, and Secure unless
// secureCookie says the request came from a browser on this machine over
// plain HTTP. The sign-in and the sign-out set it with the same
// attributes, so that the sign-out's replaces the sign-in's.
func sessionCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: server.SessionCookie, Value: value, Path: "/ui/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: maxAge, Secure: secureCookie(r)}
}

// secureCookie reports whether the sign-in cookie (a bearer token's
// equivalent for the inspector's pages while its session lives) must be
// Secure, sent back by the browser over
// HTTPS only. It is, but for a request over plain HTTP (r.TLS nil) both
// from a loopback address (r.RemoteAddr) and addressed to a loopback host
// (r.Host: localhost, *.localhost, 127.0.0.0/8, [::1];
// server.LoopbackHost): a browser on this machine at
// http://127.0.0.1:7077/ui/.
//
// mnemo serve has no TLS of its own: beyond loopback it sits behind a
// TLS-terminating proxy, where r.TLS is always nil, so r.TLS alone never
// made the cookie Secure there. A proxy on another machine connects from
// a non-loopback address; one on this machine connects from loopback but
// passes the Host it was asked for (the sign-in's Origin check already
// needs it: docs/serve.md, "The inspector"), so both get a Secure cookie. No
// X-Forwarded-Proto is read: any client could send it. The loopback case
// stays not Secure because browsers differ there: a browser may refuse a
// Secure cookie set over http (RFC 6265bis lets it; localhost is the one
// host they agree to trust), which would sign a loopback user in to
// nothing. Headless Chromium keeps one from http://127.0.0.1 (measured);
// the rule does not rely on it. A browser
// reaching the server over plain HTTP on another address (--listen
// 0.0.0.0 with no proxy) gets a Secure cookie it will not keep over
// HTTP: that sign-in sent the token in clear, and a cookie sent back in
// clear for 12 hours is what this refuses.
func secureCookie(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	return !(loopbackAddr(r.RemoteAddr) && server.LoopbackHost(r.Host))
}

// loopbackAddr reports whether addr, an "IP:port" as http.Request's
// RemoteAddr, is a loopback address (127.0.0.0/8, ::1); a name or an
// empty or unparsable addr is not.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
