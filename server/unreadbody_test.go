package server_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/server"
)

// TestRefusalBeforeBody: an answer that does not depend on the body (a
// DELETE's 403 for a token that may not erase, a 401 for an unknown
// token, a 404 for no route) is sent while the body is still arriving,
// and closes the connection. Before, net/http read what was left of the
// body first: with Content-Length 100000 sent a byte a second, the 403
// came after the body timeout (a minute). The body timeout is an hour
// here, and the client waits at most 20 s (a guard, not a measure).
func TestRefusalBeforeBody(t *testing.T) {
	h := newHarness(t, true, server.Config{BodyTimeout: time.Hour})
	h.seed("t-bob", "res-bob", bobToken, "one")
	addr := strings.TrimPrefix(h.ts.URL, "http://")
	for _, c := range []struct {
		name, head string
		status     int
	}{
		{"DeleteNoErase", "DELETE /v1/threads/t-bob HTTP/1.1\r\nAuthorization: Bearer " + bobToken, http.StatusForbidden},
		{"UnknownToken", "POST /v1/search HTTP/1.1\r\nAuthorization: Bearer not-a-token-1\r\nContent-Type: application/json", http.StatusUnauthorized},
		{"NoRoute", "POST /v1/nowhere HTTP/1.1\r\nAuthorization: Bearer " + bobToken, http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			send(t, conn, c.head+"\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"a\":")
			if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer while the body was arriving: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status || !resp.Close {
				t.Fatalf("%d, Connection %q; want %d and the connection closed", resp.StatusCode, resp.Header.Get("Connection"), c.status)
			}
		})
	}
}
