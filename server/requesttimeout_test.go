package server_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestRequestTimeoutTooShort: New refuses a RequestTimeout below
// MinRequestTimeout (1 s) with ErrInvalidConfig naming the field and the
// bound; 0 (the default) and the bound itself are taken. Before, 1ns was
// taken and every request answered 503 "timeout", a malformed body's 400
// included.
func TestRequestTimeoutTooShort(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	for _, d := range []time.Duration{1, time.Microsecond, 999 * time.Millisecond} {
		_, err := server.New(server.Config{Engine: e, RequestTimeout: d})
		if !errors.Is(err, server.ErrInvalidConfig) || !strings.Contains(err.Error(), "RequestTimeout "+d.String()+" is below 1s") {
			t.Errorf("RequestTimeout %s: %v, want ErrInvalidConfig naming RequestTimeout and 1s", d, err)
		}
	}
	for _, d := range []time.Duration{0, server.MinRequestTimeout} {
		if _, err := server.New(server.Config{Engine: e, RequestTimeout: d}); err != nil {
			t.Errorf("RequestTimeout %s: %v", d, err)
		}
	}
}
