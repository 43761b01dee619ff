//go:build linux

package pgstore

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// setUserTimeout sets TCP_USER_TIMEOUT on c to d (in milliseconds, as
// the option takes it). A kernel without the option (ENOPROTOOPT) leaves
// the default, as on other systems; any other failure fails the dial.
func setUserTimeout(c syscall.RawConn, d time.Duration) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
	}); err != nil {
		return fmt.Errorf("pgstore: set TCP_USER_TIMEOUT: %w", err)
	}
	if serr != nil && !errors.Is(serr, unix.ENOPROTOOPT) {
		return fmt.Errorf("pgstore: set TCP_USER_TIMEOUT: %w", serr)
	}
	return nil
}
