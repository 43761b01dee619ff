package inspector

import (
	"html/template"
	"net/http"

	"github.com/mnemo-go/mnemo/server"
)

// LoginPath is the inspector's sign-in page (Login), where a browser
// without a token is sent (server.Config.LoginPath), and LogoutPath where
// its pages post a sign-out (Logout).
const (
	LoginPath  = "/ui/login"
	LogoutPath = "/ui/logout"
)

var logoutRefused = template.Must(template.New("logout").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sign out refused · mnemo inspector</title>
<style>body{font:14px system-ui,sans-serif;max-width:420px;margin:80px auto;color:#1d2330}</style></head>
<body><h1>mnemo inspector</h1><p role="alert" style="color:#b3261e">This sign-out was sent from another site: you are still signed in.</p>
<p>Sign out with the button of the <a href="/ui/">inspector's pages</a>.</p></body></html>`))

// Logout returns the sign-out of the inspector, to mount without
// authentication (server.Config.Public) at LogoutPath: a POST ends the
// session the server.SessionCookie cookie names in sessions (the store
// Login starts it in), so that the cookie and any copy of it authenticate
// nothing after, expires the cookie (Max-Age 0, the same Path /ui/ and
// attributes the sign-in set) and sends the browser to the sign-in page,
// LoginPath (303). A POST from another site (as for the sign-in's POST:
// an Origin header not the server's own, or Sec-Fetch-Site
// cross-site) is a 403 page that says the browser is still signed in, and
// the session and the cookie stay. Another method is a 405 naming POST: a
// GET (a link, a prefetch) never signs out. It needs no token: all it
// does is end the session whose id the request holds. nil sessions (no
// token file) ends nothing but the cookie. The inspector's pages show the
// button when the request was signed in by the cookie.
func Logout(sessions *server.Sessions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			errorPage(w, http.StatusMethodNotAllowed, "Method not allowed", r.Method+" "+r.URL.Path+": sign out with a POST (the Sign out button of the inspector's pages)", "", "POST")
			return
		}
		secure(w.Header(), loginCSP)
		if !sameOrigin(r) {
			w.WriteHeader(http.StatusForbidden)
			logoutRefused.Execute(w, nil)
			return
		}
		if c, err := r.Cookie(server.SessionCookie); err == nil && sessions != nil {
			sessions.End(c.Value)
		}
		http.SetCookie(w, sessionCookie(r, "", -1))
		http.Redirect(w, r, LoginPath, http.StatusSeeOther)
	})
}

// signedInByCookie reports whether the inspector's request was
// authenticated by the sign-in cookie, the one case where signing out
// means something: the server has a token file (the principal is not
// server.Operator, which every request of a server without one is) and the
// request sent no Authorization header (a bearer token wins over the
// cookie and is the client's to forget) but the cookie.
func signedInByCookie(r *http.Request, p *server.Principal) bool {
	if p == nil || p == server.Operator || r.Header.Get("Authorization") != "" {
		return false
	}
	_, err := r.Cookie(server.SessionCookie)
	return err == nil
}
