//go:build !linux

package pgstore

import (
	"syscall"
	"time"
)

// setUserTimeout does nothing: TCP_USER_TIMEOUT is Linux's (libpq sets
// it on Linux only too); elsewhere the system's retransmission limit
// applies.
func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
