package recall

import "unsafe"

// hugePage is the size of the huge pages hugeMake asks for.
const hugePage = 2 << 20

// hugeMake returns a slice of length n and capacity max(n, c) whose
// backing array lies in memory advised for huge pages before anything is
// written to it (hugeHint; nothing where the platform has none), when it
// is at least hugePage bytes.
//
// A snapshot's load fills a few large arrays at once (100,000 entries of
// ~200 bytes each): written through 4 KiB pages, every page's first touch
// is a fault, and on a virtual machine a fault can cost tens of
// microseconds — ~5,000 of them were a large part of a large resource's
// first use (issue 14, BENCHMARKS.md "First use in fewer page faults").
// The array is cut from a larger allocation (up to two huge pages more,
// never touched) so that every huge page it spans lies inside the
// allocation and can be advised. A fresh large allocation comes straight
// from the runtime's new address space, untouched, so the hint takes
// effect at the first write; memory the runtime had used before is already
// resident, and the hint changes nothing there. It is only a hint: the
// memory stays the Go heap's, collected as any other.
func hugeMake[T any](n, c int) []T {
	c = max(n, c)
	var z T
	size := unsafe.Sizeof(z)
	if size == 0 || uintptr(c)*size < hugePage {
		return make([]T, n, c)
	}
	slack := int((2*hugePage+size-1)/size) + 1
	all := make([]T, c+slack)
	a := uintptr(unsafe.Pointer(unsafe.SliceData(all)))
	k := int((alignUp(a, hugePage) - a + size - 1) / size) // the first element on a huge page
	s := all[k : k+n : k+c]
	first := alignUp(a, hugePage)
	end := alignUp(a+uintptr(k+c)*size, hugePage) // within all: the slack covers it
	hugeHint(unsafe.Add(unsafe.Pointer(unsafe.SliceData(all)), first-a), end-first)
	return s
}

// alignUp rounds p up to a multiple of align (a power of two).
func alignUp(p, align uintptr) uintptr { return (p + align - 1) &^ (align - 1) }
