package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestShutdownTimeout: a request still running ShutdownTimeout after
// Serve's context ended has its connection closed (its context ends, its
// client gets no answer), and Serve's error says so, matching
// ErrShutdownTimeout: it ended with "context deadline exceeded" and left
// the request running. Serve returns once the handler cut off has
// returned (within CutOffWait), so that the caller closing the engine next
// does not close it under the handler: here the handler takes 200 ms to
// return after its context ends.
func TestShutdownTimeout(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	started, ended := make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	hold := func(*server.Principal) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-r.Context().Done()
			close(ended)
			time.Sleep(200 * time.Millisecond) // its own clean-up
			returned.Store(true)
		})
	}
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger(), ShutdownTimeout: 100 * time.Millisecond,
		Mount: map[string]func(*server.Principal) http.Handler{"/hold/": hold}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	answered := make(chan error, 1)
	go func() {
		// A POST: a mount's GET is a stream, which ends when shutdown begins.
		res, err := http.Post("http://"+ln.Addr().String()+"/hold/x", "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
		}
		answered <- err
	}()
	<-started
	cancel()
	err = <-served
	if !returned.Load() {
		t.Error("Serve returned while the handler it cut off was still running")
	}
	if !errors.Is(err, server.ErrShutdownTimeout) {
		t.Fatalf("Serve: %v, want ErrShutdownTimeout", err)
	}
	if got, want := err.Error(), "server: shutdown timed out: 1 request was still running after 100ms; its connection was closed without an answer (what it committed stays)"; got != want {
		t.Errorf("Serve: %q, want %q", got, want)
	}
	<-ended // the request's context ended with its connection
	if err := <-answered; err == nil {
		t.Error("the request cut off got an answer")
	}
}
