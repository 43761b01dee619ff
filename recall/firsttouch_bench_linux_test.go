package recall_test

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkFirstTouch measures what the first touch of a page costs on
// this machine, the floor under a first use (issue 14): a file of 44 MiB
// in the page cache mapped privately as a snapshot's messages part is,
// read (file; file-populated: MADV_POPULATE_READ first, as populateRead
// does), and fresh anonymous memory written in 4 KiB pages (anon-4k) or
// advised for huge pages (anon-huge, as hugeMake advises). Each iteration
// maps afresh, touches one byte of every 4 KiB page and unmaps; it reports
// µs/page (wall, per 4 KiB) and cpu-µs/page (the process's CPU).
//
//	go test ./recall/ -run '^$' -bench FirstTouch -benchtime 20x
func BenchmarkFirstTouch(b *testing.B) {
	const size = 44 << 20
	path := filepath.Join(b.TempDir(), "part")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	file := func(populate bool) func() (unsafe.Pointer, error) {
		return func() (unsafe.Pointer, error) {
			p, err := unix.MmapPtr(int(f.Fd()), 0, nil, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
			if err == nil && populate {
				_ = unix.Madvise(unsafe.Slice((*byte)(p), size), unix.MADV_POPULATE_READ)
			}
			return p, err
		}
	}
	for _, bc := range []struct {
		name  string
		mmap  func() (unsafe.Pointer, error)
		write bool
	}{
		{"file", file(false), false},
		{"file-populated", file(true), false},
		{"anon-4k", func() (unsafe.Pointer, error) { return anon(size, unix.MADV_NOHUGEPAGE) }, true},
		{"anon-huge", func() (unsafe.Pointer, error) { return anon(size, unix.MADV_HUGEPAGE) }, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var sink byte
			var cpu int64
			for b.Loop() {
				before := rusage(b)
				p, err := bc.mmap()
				if err != nil {
					b.Fatal(err)
				}
				m := unsafe.Slice((*byte)(p), size)
				for i := 0; i < len(m); i += 4096 {
					if bc.write {
						m[i] = sink
					} else {
						sink += m[i]
					}
				}
				if err := unix.MunmapPtr(p, size); err != nil {
					b.Fatal(err)
				}
				after := rusage(b)
				cpu += after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
			}
			pages := float64(b.N) * size / 4096
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1000/pages, "µs/page")
			b.ReportMetric(float64(cpu)/1000/pages, "cpu-µs/page")
			b.ReportMetric(0, "ns/op")
			_ = sink
		})
	}
}

// anon maps n bytes of anonymous memory aligned to 2 MiB (the rest of the
// mapping unmapped), advised with advice.
func anon(n uintptr, advice int) (unsafe.Pointer, error) {
	const huge = 2 << 20
	p, err := unix.MmapPtr(-1, 0, nil, n+huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	skip := (huge - uintptr(p)%huge) % huge
	if skip > 0 {
		if err := unix.MunmapPtr(p, skip); err != nil {
			return nil, err
		}
	}
	if tail := huge - skip; tail > 0 {
		if err := unix.MunmapPtr(unsafe.Add(p, skip+n), tail); err != nil {
			return nil, err
		}
	}
	p = unsafe.Add(p, skip)
	_ = unix.Madvise(unsafe.Slice((*byte)(p), n), advice)
	return p, nil
}
