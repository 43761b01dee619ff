package mcpserver_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPBodyBadChunk: a POST to /mcp whose Transfer-Encoding: chunked
// body has a malformed chunk is a 400 in the HTTP API's words, "the request
// body could not be read: …; send it again", plain text as the other
// refusals of a body /mcp cannot take (one too large, one not JSON). It
// answered Go's error alone ("invalid byte in chunk length"), which says
// neither what could not be read nor what to do.
func TestHTTPBodyBadChunk(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	for _, c := range []struct{ name, chunks, want string }{
		{"BadLength", "zz\r\n{}\r\n0\r\n\r\n", "the request body could not be read: invalid byte in chunk length; send it again"},
		{"NoCRLFAfterData", "2\r\n{}XX0\r\n\r\n", "the request body could not be read: malformed chunked encoding; send it again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			req := "POST /mcp HTTP/1.1\r\nHost: " + strings.TrimPrefix(ts.URL, "http://") +
				"\r\nAuthorization: Bearer alice-secret-1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream" +
				"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + c.chunks
			if _, err := conn.Write([]byte(req)); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			got, ctype := strings.TrimSpace(string(b)), res.Header.Get("Content-Type")
			if res.StatusCode != http.StatusBadRequest || !strings.HasPrefix(ctype, "text/plain") || got != c.want {
				t.Fatalf("%d %s %q; want 400 text/plain %q", res.StatusCode, ctype, got, c.want)
			}
		})
	}
}
