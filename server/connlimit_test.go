package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// serveLoopback runs srv.Serve on a loopback port until the test ends and
// returns its address.
func serveLoopback(t *testing.T, cfg server.Config) string {
	t.Helper()
	if cfg.Engine == nil {
		cfg.Engine = enginetest.MustOpen(t, engine.Config{})
	}
	if cfg.Logger == nil {
		cfg.Logger = discardLogger()
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// testTokenSet is the test token file, parsed.
func testTokenSet(t *testing.T) *server.Tokens {
	t.Helper()
	tok, err := server.ParseTokens([]byte(testTokens))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// rawGet sends a GET of path on conn (token "" sends none) and reads its
// answer whole, within 10 s.
func rawGet(conn net.Conn, br *bufio.Reader, addr, path, token string) (*http.Response, error) {
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer conn.SetDeadline(time.Time{})
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, addr, auth); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// TestConnectionFlood: a client with no token that opens connections past
// Config.MaxConns, each asking for /healthz once and then kept alive idle,
// does not keep a tenant out: the connections idle longest are closed to
// make room, and alice's request on a new connection is answered. Before,
// there was no bound: 17,560 such connections ran mnemo serve out of files
// ("accept4: too many open files") and alice got no answer.
func TestConnectionFlood(t *testing.T) {
	const bound, flood = 8, 30
	addr := serveLoopback(t, server.Config{Tokens: testTokenSet(t), MaxConns: bound})
	var conns []net.Conn
	for i := range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if resp, err := rawGet(c, bufio.NewReader(c), addr, "/healthz", ""); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("flood connection %d: /healthz: %v %v", i, resp, err)
		}
		conns = append(conns, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := rawGet(c, bufio.NewReader(c), addr, "/v1/threads?resourceId=res-alice", aliceToken)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("alice after a flood of %d idle connections (bound %d): %v %v", flood, bound, resp, err)
	}
	closed := 0
	for _, fc := range conns {
		_ = fc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := fc.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			closed++
		} else if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("an idle flood connection: %v", err)
		}
	}
	if want := flood + 1 - bound; closed < want {
		t.Errorf("the server closed %d of %d idle connections, want at least %d (at most %d open)", closed, flood, want, bound)
	}
}

// TestConnectionBoundWaitsForBusy: at Config.MaxConns with no connection
// idle (one is sending a body), a new connection is neither refused nor
// served beside it: it waits for one to finish (here the body's timeout,
// a 408), then is answered.
func TestConnectionBoundWaitsForBusy(t *testing.T) {
	entered := make(chan struct{}, 1)
	hold := func(*server.Principal) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			if _, err := io.ReadAll(r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusRequestTimeout)
			}
		})
	}
	addr := serveLoopback(t, server.Config{Tokens: testTokenSet(t), MaxConns: 1, BodyTimeout: 300 * time.Millisecond,
		Mount: map[string]func(*server.Principal) http.Handler{"/hold": hold}})
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	fmt.Fprintf(busy, "POST /hold HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{", addr, aliceToken)
	<-entered // the connection is busy: its handler reads the body
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := rawGet(c, bufio.NewReader(c), addr, "/v1/threads?resourceId=res-alice", aliceToken)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("alice while the one connection allowed was busy: %v %v", resp, err)
	}
	// The bound held: alice was answered after the busy connection's
	// 408, which is there to read at once.
	_ = busy.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	first, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil || first.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("the busy connection, once alice was answered: %v %v, want its 408 (a second connection was served while it was busy)", first, err)
	}
}
