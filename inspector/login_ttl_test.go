package inspector_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/server"
)

// TestLoginStatesTTL: the sign-in page states how long a sign-in lasts
// from the sessions' TTL (server.SessionOptions.TTL); it said "(12 hours)"
// whatever the TTL. Without sessions it states no figure.
func TestLoginStatesTTL(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ttl  time.Duration // -1: no sessions
		want string
	}{
		{"Default", 0, "until you sign out or the sign-in expires (12 hours);"},
		{"Hour", time.Hour, "until you sign out or the sign-in expires (1 hour);"},
		{"HoursMinutes", 90 * time.Minute, "until you sign out or the sign-in expires (1 hour 30 minutes);"},
		{"Days", 72 * time.Hour, "until you sign out or the sign-in expires (72 hours);"},
		{"Seconds", 45 * time.Second, "until you sign out or the sign-in expires (45 seconds);"},
		{"Fraction", 1500 * time.Millisecond, "until you sign out or the sign-in expires (1.5s);"},
		{"NoSessions", -1, "until you sign out or the sign-in expires;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sessions *server.Sessions
			if c.ttl >= 0 {
				if sessions, err = server.NewSessions(server.SessionOptions{TTL: c.ttl}); err != nil {
					t.Fatal(err)
				}
			}
			w := httptest.NewRecorder()
			inspector.Login(tok, sessions, nil).ServeHTTP(w, httptest.NewRequest("GET", "/ui/login", nil))
			body, _ := io.ReadAll(w.Result().Body)
			if w.Code != 200 || !strings.Contains(string(body), c.want) {
				t.Fatalf("GET /ui/login: %d, body lacks %q:\n%s", w.Code, c.want, body)
			}
		})
	}
}
