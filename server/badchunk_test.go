package server_test

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyBadChunk: a Transfer-Encoding: chunked body with a malformed
// chunk is a 400 saying the body could not be read; it said "malformed
// JSON: invalid byte in chunk length", though no JSON was looked at.
func TestBodyBadChunk(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for name, chunks := range map[string]string{
		"bad length":         "zz\r\n{}\r\n0\r\n\r\n",
		"no CRLF after data": "2\r\n{}XX0\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		req := "POST /v1/threads/t-bob/messages HTTP/1.1\r\nHost: mnemo\r\nAuthorization: Bearer " + bobToken +
			"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var p server.Problem
		err = json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		conn.Close()
		if err != nil || res.StatusCode != 400 || !strings.HasPrefix(p.Detail, "the request body could not be read: ") || strings.Contains(p.Detail, "JSON") {
			t.Errorf("%s: status %d problem %+v (%v), want 400 saying the request body could not be read", name, res.StatusCode, p, err)
		}
	}
}
