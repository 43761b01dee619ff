package recall

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeHint advises the kernel to back the n bytes at p (whole huge pages:
// hugeMake) with huge pages (MADV_HUGEPAGE), so that their first writes
// fault once per 2 MiB instead of once per 4 KiB. A refusal is ignored.
func hugeHint(p unsafe.Pointer, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_HUGEPAGE)
}
