package recall

import "golang.org/x/sys/unix"

// populateRead maps b, a mapping from mapPrivate, for reading
// ahead of their first use (MADV_POPULATE_READ, Linux 5.14): pages of a
// file mapping from the page cache (or the disk). One call does in
// the kernel what would otherwise be a fault per 64 KiB of a file (issue
// 14, BENCHMARKS.md "First use: the term dictionary in place"). A refusal
// (an older kernel) is ignored: the pages fault in as before.
func populateRead(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_POPULATE_READ)
	}
}
