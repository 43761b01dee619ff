package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyCutOff: a client that hangs up half-way through a request body,
// over a real loopback connection, is answered and logged as a client
// that closed the request (499), whether the body has a Content-Length or
// is chunked, and whether the client shuts its sending side (it still
// reads the answer) or closes the connection (only the access log sees
// it). Before (walk39 #7), the body's read failed with "unexpected EOF"
// and the request was a 400, "the request body could not be read", counted
// as a bad request though nothing was wrong with what arrived.
func TestBodyCutOff(t *testing.T) {
	body := `{"resourceId":"res-bob","messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`
	half := body[:len(body)/2]
	heads := map[string]string{
		"Content-Length": fmt.Sprintf("Content-Length: %d\r\n", len(body)),
		"chunked":        "Transfer-Encoding: chunked\r\n",
	}
	for name, head := range heads {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, true, server.Config{})
			for _, closeAll := range []bool{false, true} {
				conn, err := net.Dial("tcp", strings.TrimPrefix(h.ts.URL, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				// Expect: 100-continue: the server's 100 says the handler
				// reads the body, so the hang-up below comes while it does.
				req := "POST /v1/threads/t-bob/messages HTTP/1.1\r\nHost: mnemo\r\nAuthorization: Bearer " + bobToken +
					"\r\nContent-Type: application/json\r\nConnection: close\r\nExpect: 100-continue\r\n" + head + "\r\n"
				if _, err := conn.Write([]byte(req)); err != nil {
					t.Fatal(err)
				}
				br := bufio.NewReader(conn)
				if res, err := http.ReadResponse(br, nil); err != nil || res.StatusCode != http.StatusContinue {
					t.Fatalf("before the body: %v, %v; want 100 Continue", res, err)
				}
				part := half
				if name == "chunked" {
					part = fmt.Sprintf("%x\r\n%s\r\n", len(half), half) // no last chunk
				}
				if _, err := conn.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
				if closeAll {
					conn.Close() // only the access log sees what follows
					continue
				}
				conn.(*net.TCPConn).CloseWrite()
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				var p server.Problem
				err = json.NewDecoder(res.Body).Decode(&p)
				res.Body.Close()
				conn.Close()
				if err != nil || res.StatusCode != 499 || p.Type != server.ProblemTypeBase+"client-closed-request" {
					t.Errorf("body cut off by a shutdown: status %d problem %+v (%v), want 499 client-closed-request", res.StatusCode, p, err)
				}
			}
			h.ts.Close() // waits for the requests' log lines
			n := 0
			for _, l := range strings.Split(h.logs.String(), "\n") {
				if strings.Contains(l, `"route":"POST /v1/threads/{thread}/messages"`) {
					n++
					if !strings.Contains(l, `"status":499`) {
						t.Errorf("a body cut off was logged %s, want status 499", l)
					}
				}
			}
			if n != 2 {
				t.Errorf("%d access-log lines for the two requests, want 2:\n%s", n, h.logs.String())
			}
			if msgs, err := h.e.Messages(t.Context(), "t-bob", 0, 10); err == nil && len(msgs) > 0 {
				t.Errorf("a body cut off stored %d messages", len(msgs))
			}
		})
	}
}
