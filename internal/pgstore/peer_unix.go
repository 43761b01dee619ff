//go:build unix

package pgstore

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// serverSpoke reports whether c's socket has something to read while the
// connection is idle between statements: the server spoke since its last
// answer, which for an idle connection means it is ending it (a FATAL
// "terminating connection" before it closes the socket, at a restart or
// a failover), it closed it (an end of file) or the socket failed (a
// reset), or, harmless, it sent a notice. It looks without reading,
// waiting or locking: one non-blocking MSG_PEEK. A socket it cannot look
// at counts as silent.
func serverSpoke(c net.Conn) bool {
	if t, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		c = t.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	spoke := false
	// Control, not Read: RawRead takes the socket's read lock, which pgx's
	// background reader (pgconn's bgreader, left blocked in a Read on an
	// idle connection after some statements) holds until the server
	// sends something: the pool's Acquire then waited for ever (CI,
	// 2026-12-04: TestLoad and TestSearchPreviewsLarge on Postgres hung
	// 14 minutes in semacquire under serverSpoke). A peek needs no lock;
	// what such a reader already took is its own to report.
	_ = rc.Control(func(fd uintptr) {
		var b [1]byte
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		// Data or an end of file (n >= 0), or an error other than "nothing
		// yet".
		spoke = err == nil || !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR)
	})
	return spoke
}
