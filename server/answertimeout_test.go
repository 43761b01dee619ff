package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// syncBuffer is a log destination a test may read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUnreadAnswer: a client that asks for a large answer and never reads
// it (a stuck or malicious client, a proxy that stopped reading) has its
// connection closed once Config.AnswerTimeout has passed, and the handler
// returns (its access-log line is written). The handler waited in the
// connection's write for ever: with the answer (up to
// limits.maxAnswerBytes, 16 MiB) held in memory, until a shutdown cut it
// off, whatever the request's timeout.
func TestUnreadAnswer(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	ctx := context.Background()
	text := strings.Repeat("a long answer nobody reads ", 9000) // ~240 KB
	for i := range 4 {
		var msgs []engine.Message
		for j := range 10 {
			msgs = append(msgs, engine.Message{ID: fmt.Sprintf("m%d-%d", i, j), Role: engine.RoleUser, Content: text})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	logs := &syncBuffer{}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		AnswerTimeout: 300 * time.Millisecond, ShutdownTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() {
		cancel()
		<-served
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096) // the ~10 MB answer cannot fit the sockets' buffers
	if _, err := fmt.Fprintf(conn, "GET /v1/threads/t/messages?limit=1000 HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"route":"GET /v1/threads/{thread}/messages"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the handler still writes its answer to a client that reads nothing 10 s later; logs:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("access log: %s", logs.String())
}

// TestAnswerDeadlineLifted: the deadline an answer gets (AnswerTimeout)
// does not outlive it on a kept-alive connection: the connection's next
// request, past that deadline, is answered (here a 404, which no route's
// handler writes). net/http lifts it after each answer; this guards that.
func TestAnswerDeadlineLifted(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger(), AnswerTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	for i, path := range []string{"/v1/threads?resourceId=r", "/no-such-path"} {
		if i > 0 {
			time.Sleep(300 * time.Millisecond) // past the first answer's deadline
		}
		if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, ts.Listener.Addr()); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("GET %s on the kept-alive connection: %v", path, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		t.Logf("GET %s: %d", path, res.StatusCode)
	}
}
