package inspector

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

// TestSecureCookie: the sign-in cookie is Secure but for plain HTTP from
// a loopback address to a loopback host (a browser on this machine).
// Before, it was Secure only with r.TLS, which is never set behind the
// TLS-terminating proxy mnemo serve needs beyond loopback.
func TestSecureCookie(t *testing.T) {
	for _, tc := range []struct {
		name, remote, host string
		tls                bool
		want               bool
	}{
		{"Loopback127", "127.0.0.1:50000", "127.0.0.1:7077", false, false},
		{"LoopbackLocalhost", "127.0.0.1:50000", "localhost:7077", false, false},
		{"LoopbackV6", "[::1]:50000", "[::1]:7077", false, false},
		{"LoopbackSubdomain", "127.0.0.1:50000", "ui.localhost:7077", false, false},
		{"LoopbackNoPort", "127.0.0.1:50000", "localhost", false, false},
		{"SameHostProxy", "127.0.0.1:50000", "mnemo.example.com", false, true},
		{"SameHostProxyV6", "[::1]:50000", "mnemo.example.com", false, true},
		{"RemoteProxyLoopbackHost", "10.0.0.5:50000", "127.0.0.1:7077", false, true},
		{"RemoteProxy", "10.0.0.5:50000", "mnemo.example.com", false, true},
		{"LANPlainHTTP", "192.168.1.20:50000", "192.168.1.2:7077", false, true},
		{"NoHost", "127.0.0.1:50000", "", false, true},
		{"NoRemote", "", "127.0.0.1:7077", false, true},
		{"LoopbackTLS", "127.0.0.1:50000", "127.0.0.1:7077", true, true},
		{"RemoteTLS", "10.0.0.5:50000", "mnemo.example.com", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/ui/login", nil)
			r.RemoteAddr, r.Host = tc.remote, tc.host
			r.TLS = nil
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if got := secureCookie(r); got != tc.want {
				t.Errorf("secureCookie(remote %q, Host %q, TLS %v) = %v, want %v", tc.remote, tc.host, tc.tls, got, tc.want)
			}
			if c := sessionCookie(r, "t", 60); c.Secure != tc.want {
				t.Errorf("sessionCookie: Secure %v, want %v", c.Secure, tc.want)
			}
		})
	}
}
