//go:build !linux

package recall

import "unsafe"

// hugeHint does nothing off Linux: MADV_HUGEPAGE is Linux's (other
// systems promote pages on their own or not at all).
func hugeHint(p unsafe.Pointer, n uintptr) {}
