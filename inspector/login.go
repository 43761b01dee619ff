package inspector

import (
	"html/template"
	"net/http"

	"github.com/mnemo-go/mnemo/server"
)

var loginPage = template.Must(template.New("login").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sign in · mnemo inspector</title>
<style>body{font:14px system-ui,sans-serif;max-width:420px;margin:80px auto;color:#1d2330}input{width:100%;padding:8px;margin:8px 0;font:inherit}button{padding:8px 16px;font:inherit}</style></head>
<body><h1>mnemo inspector</h1><p>This server has a token file. Paste a token to see its resources; it is kept in a cookie for this site only.</p>
{{if .}}<p role="alert" style="color:#b3261e">{{.}}</p>{{end}}
<form method="post" action="/ui/login"><input type="password" name="token" autocomplete="current-password" placeholder="token" required><button type="submit">Sign in</button></form></body></html>`))

// loginCSP forbids everything the sign-in page does not need, framing
// included (no clickjacking of the token form).
const loginCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"

// Login returns the sign-in page for a server with a token file, to mount
// without authentication (server.Config.Public) at "/ui/login": GET shows a
// form, POST checks the token against tokens and stores it in the
// server.TokenCookie cookie (HttpOnly, SameSite=Strict, 12 hours) and goes
// to /ui/; an unknown token gets the form again with a 401 that says so
// (nil tokens accepts any). The cookie authenticates the inspector's pages
// (GET) only, never a write.
func Login(tokens *server.Tokens) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			loginForm(w, http.StatusOK, "")
		case http.MethodPost:
			tok := r.PostFormValue("token")
			if tok == "" {
				loginForm(w, http.StatusBadRequest, "Paste a token.")
				return
			}
			if tokens != nil {
				if _, ok := tokens.Lookup(tok); !ok {
					loginForm(w, http.StatusUnauthorized, "That token is not in the server's token file.")
					return
				}
			}
			http.SetCookie(w, &http.Cookie{Name: server.TokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: 12 * 3600, Secure: r.TLS != nil})
			http.Redirect(w, r, "/ui/", http.StatusSeeOther)
		default:
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

func loginForm(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", loginCSP)
	w.WriteHeader(status)
	loginPage.Execute(w, msg)
}
