package pgstore_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
)

// TestOpenRefusedSaysOnce: a server that is not running (a port nobody
// listens on) fails Open with the dial's words once. Before, pgx's
// sslmode=prefer tries the same address twice (TLS, then plain), and the
// error said "failed to connect to `user=… database=…`:" then the same
// "H:P (IP): dial error: … connection refused" line twice.
func TestOpenRefusedSaysOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, mode := range []string{"", "?sslmode=prefer", "?sslmode=disable"} {
		_, err := pgstore.Open(context.Background(), fmt.Sprintf("postgres://nobody@%s/x%s", addr, mode))
		if err == nil {
			t.Fatalf("%q: Open of a closed port succeeded", mode)
		}
		msg := err.Error()
		if strings.Count(msg, "connection refused") != 1 || strings.Contains(msg, "failed to connect") || strings.Contains(msg, "\n") {
			t.Errorf("%q: %q, want one line saying connection refused once", mode, msg)
		}
	}
}
