//go:build unix

package pgstore_test

import (
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
)

// TestServerSpokeWhileRead: serverSpoke returns at once on a socket
// another goroutine is blocked reading, as pgx's background reader
// (pgconn's bgreader, started by a write slower than 15 ms) stays blocked
// in a Read on an idle pooled connection until the server next sends
// something. Before, serverSpoke peeked through the socket's RawRead,
// which waits for that reader's lock: the pool's Acquire hung for ever
// (CI on 2026-12-04: TestLoad and TestSearchPreviewsLarge on Postgres,
// 14 minutes in semacquire). No Postgres needed: a loopback socket pair.
func TestServerSpokeWhileRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	defer server.Close()

	read := make(chan error, 1)
	go func() {
		_, err := client.Read(make([]byte, 1)) // the background reader
		read <- err
	}()
	waitBlockedInRead(t)
	spoke := make(chan bool, 1)
	go func() { spoke <- pgstore.ServerSpoke(client) }()
	select {
	case s := <-spoke:
		if s {
			t.Error("a silent socket reported spoken to")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serverSpoke waited for the goroutine reading the socket")
	}
	if _, err := server.Write([]byte{'Z'}); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
}

// waitBlockedInRead waits until a goroutine is parked reading a socket
// (its stack holds net.(*conn).Read in IO wait).
func waitBlockedInRead(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[IO wait") && strings.Contains(g, "net.(*conn).Read") {
				return
			}
		}
	}
	t.Fatal("the reading goroutine did not block in 10 s")
}
