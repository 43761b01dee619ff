package server_test

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyTimeout: a client that stalls in the middle of a request body
// gets a 408 once Config.BodyTimeout has passed and its connection is
// closed; before, the connection was held as long as the client wished.
// A body that arrives in time is served, and the deadline is lifted once
// it has: the next request on the same keep-alive connection, sent after
// more than the timeout, is served too.
func TestBodyTimeout(t *testing.T) {
	h := newHarness(t, true, server.Config{BodyTimeout: 300 * time.Millisecond})
	h.seed("t-bob", "res-bob", bobToken, "one")
	addr := strings.TrimPrefix(h.ts.URL, "http://")
	head := "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + bobToken + "\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
	body := `{"resourceId":"res-bob","query":"one"}`

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	send(t, c, strings.Replace(head, "%d", "1000", 1)+body[:10])
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("stalled body: no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: status %d, want 408", resp.StatusCode)
	}

	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	r2 := bufio.NewReader(c2)
	for i := 0; i < 2; i++ {
		send(t, c2, strings.Replace(head, "%d", strconv.Itoa(len(body)), 1)+body)
		resp, err := http.ReadResponse(r2, nil)
		if err != nil {
			t.Fatalf("request %d on a kept-alive connection: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		time.Sleep(600 * time.Millisecond) // twice the timeout: a deadline left set would close the connection
	}
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}
