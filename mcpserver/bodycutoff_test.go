package mcpserver_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPBodyCutOff: a POST to /mcp whose client shuts its sending side
// half-way through the body (a real loopback connection) is answered 499,
// a client that closed the request, as the HTTP API answers it; it was a
// 400 "the request body could not be read: unexpected EOF; send it again",
// logged and counted as a bad request (walk39 #7).
func TestHTTPBodyCutOff(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "POST /mcp HTTP/1.1\r\nHost: " + strings.TrimPrefix(ts.URL, "http://") +
		"\r\nAuthorization: Bearer alice-secret-1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream" +
		fmt.Sprintf("\r\nContent-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n", len(body))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if res, err := http.ReadResponse(br, nil); err != nil || res.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: %v, %v; want 100 Continue (the body is being read)", res, err)
	}
	if _, err := conn.Write([]byte(body[:len(body)/2])); err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).CloseWrite()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 499 || !strings.Contains(string(b), "the client closed the connection before the body's end") {
		t.Fatalf("%d %q; want 499 saying the client closed the connection", res.StatusCode, b)
	}
}
