package server_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestCookieMountUnknown: a CookieMount that is no pattern of Mount is a
// configuration error naming the field, not a cookie that silently
// authenticates nothing.
func TestCookieMountUnknown(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	ui := func(*server.Principal) http.Handler { return http.NotFoundHandler() }
	for _, tc := range []struct {
		name, cookie string
		wantErr      bool
	}{
		{"OK", "/ui/", false},
		{"None", "", false},
		{"ErrInvalidConfig", "/v1/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.New(server.Config{Engine: e, Mount: map[string]func(*server.Principal) http.Handler{"/ui/": ui}, CookieMount: tc.cookie})
			if got := errors.Is(err, server.ErrInvalidConfig); got != tc.wantErr {
				t.Fatalf("New with CookieMount %q: %v, want ErrInvalidConfig %v", tc.cookie, err, tc.wantErr)
			}
		})
	}
}
