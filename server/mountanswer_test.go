package server_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/server"
)

// TestMountUnreadAnswer: a client that never reads a mounted handler's
// large answer (an inspector page is one write of up to tens of MB; an
// /mcp event stream writes on) has its connection closed once
// Config.AnswerTimeout has passed, and the handler returns: its access-log
// line is written, as for the API (TestUnreadAnswer). Before, the mounts
// had no such bound: the handler waited in its write for ever.
func TestMountUnreadAnswer(t *testing.T) {
	page := strings.Repeat("&lt;", 5<<20) // 20 MB, past the sockets' buffers
	mount := map[string]func(*server.Principal) http.Handler{
		"/page": func(*server.Principal) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) })
		},
		"/stream": func(*server.Principal) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				event := "data: " + strings.Repeat("x", 64<<10) + "\n\n"
				for r.Context().Err() == nil {
					if _, err := fmt.Fprint(w, event); err != nil {
						return
					}
					http.NewResponseController(w).Flush()
				}
			})
		},
	}
	for _, path := range []string{"/page", "/stream"} {
		logs := &syncBuffer{}
		addr := serveLoopback(t, server.Config{Logger: slog.New(slog.NewJSONHandler(logs, nil)), Mount: mount,
			AnswerTimeout: 300 * time.Millisecond, ShutdownTimeout: time.Second})
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(logs.String(), `"route":"`+path+`"`) {
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: the handler still writes to a client that reads nothing 10 s later", path)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestMountStreamOutlivesAnswerTimeout: an event stream whose client reads
// may wait between events longer than Config.AnswerTimeout (MCP's GET
// stream is long-lived by design): only each event's write is bounded.
func TestMountStreamOutlivesAnswerTimeout(t *testing.T) {
	mount := map[string]func(*server.Principal) http.Handler{
		"/stream": func(*server.Principal) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for i := range 3 {
					if i > 0 {
						time.Sleep(250 * time.Millisecond) // past the answer timeout, since the last write
					}
					fmt.Fprintf(w, "data: %d\n\n", i)
					http.NewResponseController(w).Flush()
				}
			})
		},
	}
	addr := serveLoopback(t, server.Config{Mount: mount, AnswerTimeout: 100 * time.Millisecond})
	resp, err := http.Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			events = append(events, line)
		}
	}
	if got := strings.Join(events, ","); got != "data: 0,data: 1,data: 2" || sc.Err() != nil {
		t.Errorf("the stream's events: %q (%v), want data: 0 to 2", got, sc.Err())
	}
}
