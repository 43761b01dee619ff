//go:build !unix

package pgstore

import "net"

// serverSpoke reports false: off Unix a lost connection is found by using
// it (or by the ping of a connection idle for a second).
func serverSpoke(net.Conn) bool { return false }
