package server_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestSessions: a session answers its principal until it is ended or its
// TTL has passed; the caps end the oldest of a token, then the oldest of
// all; expired sessions are dropped at the next sign-in.
func TestSessions(t *testing.T) {
	ana, bob := &server.Principal{Name: "ana"}, &server.Principal{Name: "bob"}
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	open := func(t *testing.T, opt server.SessionOptions) *server.Sessions {
		t.Helper()
		opt.Now = clock
		s, err := server.NewSessions(opt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	live := func(s *server.Sessions, id string, want *server.Principal) bool {
		p, ok := s.Lookup(id)
		return ok == (want != nil) && p == want
	}
	t.Run("OK", func(t *testing.T) {
		s := open(t, server.SessionOptions{})
		id := s.Start(ana)
		if !live(s, id, ana) || !live(s, "not-an-id", nil) || !live(s, "", nil) {
			t.Fatalf("Lookup: want ana for the started id and nothing else")
		}
		if !s.End(id) || s.End(id) || !live(s, id, nil) || s.Len() != 0 {
			t.Errorf("End: want true once, then the id refused and no session held (Len %d)", s.Len())
		}
	})
	t.Run("Expired", func(t *testing.T) {
		s := open(t, server.SessionOptions{TTL: time.Hour})
		defer func() { now = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC) }()
		a, b := s.Start(ana), s.Start(bob)
		now = now.Add(time.Hour - time.Nanosecond)
		if !live(s, a, ana) {
			t.Errorf("just before the TTL: refused")
		}
		now = now.Add(time.Nanosecond)
		if !live(s, a, nil) || s.End(b) {
			t.Errorf("at the TTL: still live")
		}
		s.Start(ana)
		if got, want := s.Len(), 1; got != want {
			t.Errorf("after a sign-in past the TTL: %d sessions held, want %d (the expired dropped)", got, want)
		}
	})
	t.Run("PerToken", func(t *testing.T) {
		s := open(t, server.SessionOptions{PerToken: 2})
		b := s.Start(bob)
		a1, a2, a3 := s.Start(ana), s.Start(ana), s.Start(ana)
		if !live(s, a1, nil) || !live(s, a2, ana) || !live(s, a3, ana) || !live(s, b, bob) || s.Len() != 3 {
			t.Errorf("3 sign-ins of ana with PerToken 2: want the first ended, bob's kept (Len %d)", s.Len())
		}
	})
	t.Run("Max", func(t *testing.T) {
		s := open(t, server.SessionOptions{Max: 3})
		a1, b1, a2, b2 := s.Start(ana), s.Start(bob), s.Start(ana), s.Start(bob)
		if !live(s, a1, nil) || !live(s, b1, bob) || !live(s, a2, ana) || !live(s, b2, bob) || s.Len() != 3 {
			t.Errorf("4 sign-ins with Max 3: want the oldest of all ended (Len %d)", s.Len())
		}
		a3 := s.Start(ana)
		if !live(s, b1, nil) || !live(s, a3, ana) {
			t.Errorf("a 5th: want the next oldest ended")
		}
	})
	t.Run("ErrInvalidConfig", func(t *testing.T) {
		for _, opt := range []server.SessionOptions{{TTL: -1}, {PerToken: -1}, {Max: -1}} {
			if _, err := server.NewSessions(opt); !errors.Is(err, server.ErrInvalidConfig) {
				t.Errorf("NewSessions(%+v): %v, want ErrInvalidConfig", opt, err)
			}
		}
	})
}

// TestCookieMountNeedsSessions: a CookieMount with a token file and no
// Sessions is a configuration error naming the field, not a cookie that
// silently authenticates nothing.
func TestCookieMountNeedsSessions(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ui := map[string]func(*server.Principal) http.Handler{"/ui/": func(*server.Principal) http.Handler { return http.NotFoundHandler() }}
	for _, tc := range []struct {
		name     string
		tokens   *server.Tokens
		sessions *server.Sessions
		wantErr  bool
	}{
		{"OK", tok, sessions, false},
		{"NoTokenFile", nil, nil, false},
		{"ErrInvalidConfig", tok, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.New(server.Config{Engine: e, Tokens: tc.tokens, Sessions: tc.sessions, Mount: ui, CookieMount: "/ui/"})
			if got := errors.Is(err, server.ErrInvalidConfig); got != tc.wantErr {
				t.Fatalf("New: %v, want ErrInvalidConfig %v", err, tc.wantErr)
			}
		})
	}
}
