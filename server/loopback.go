package server

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// checkLoopbackHost refuses, on a server without a token file (and
// without Config.AnyHost), a request whose Host header is not a loopback
// host or whose Origin header, when sent, is not a loopback origin: such a
// server answers every request as the operator, and a browser sends a page
// that rebound its name to 127.0.0.1 with that name as Host and Origin.
// A request with no Host at all (HTTP/1.0, or a handler called in
// process) is not a browser's: only its Origin is checked. A write (any
// method but GET, HEAD and OPTIONS) from a browser must also come from a
// page of the server's own origin (http.CrossOriginProtection: its
// Sec-Fetch-Site, else its Origin against Host): a page of another
// loopback origin (http://localhost:3000, any local web app) could post
// a body without a Content-Type, a simple request no preflight stops, and
// append to or load a context of any resource (it could not read the
// answer). A client that is no browser sends neither header and passes.
// The host refusal is a 403 problem of type host-refused, the origin
// refusals of type cross-origin, titled as what they are (they were
// titled "The token does not allow this operation", on a server that has
// no token).
func (s *Server) checkLoopbackHost(r *http.Request) error {
	if s.cfg.Tokens != nil || s.cfg.AnyHost {
		return nil
	}
	if r.Host != "" && !LoopbackHost(r.Host) {
		return errorf(kindHost, "", "this server has no token file, so it answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not %q; give mnemo serve --tokens FILE to serve other names", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !LoopbackHost(u.Host) {
			return errorf(kindCrossOrigin, "", "this server answers no browser page of another origin than a loopback one, not %q (a cross-origin browser request)", o)
		}
	}
	if err := s.crossOrigin.Check(r); err != nil {
		from := r.Header.Get("Origin")
		if from == "" {
			from = "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
		}
		return errorf(kindCrossOrigin, "", "this server takes a %s from no browser page of another origin than its own, not %q (a cross-origin browser write): send it from a page of the server, or from a client that is no browser", r.Method, from)
	}
	return nil
}

// LoopbackHost reports whether hostport (a Host header: a name or an IP,
// with or without a port) names this machine's loopback interface.
// The inspector uses it too, to decide whether its sign-in cookie is
// Secure.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
