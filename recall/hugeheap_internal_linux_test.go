package recall

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeMake: hugeMake's slice has the asked length and capacity, is
// usable, and every 2 MiB page a large one touches, its first and last
// included, lies in a mapping advised for huge pages (smaps VmFlags "hg");
// a small one is a plain slice.
func TestHugeMake(t *testing.T) {
	s := hugeMake[entry](9000, 12000) // ~2.5 MB of entries: spans at least one huge page
	if len(s) != 9000 || cap(s) != 12000 {
		t.Fatalf("len %d cap %d, want 9000 12000", len(s), cap(s))
	}
	for i := range s {
		s[i].ord = i
	}
	s = append(s, entry{ord: 9000})
	if s[9000].ord != 9000 || s[17].ord != 17 {
		t.Fatal("the slice does not hold what was written")
	}
	start := uintptr(unsafe.Pointer(&s[0]))
	end := start + uintptr(cap(s))*unsafe.Sizeof(entry{})
	for p := start &^ (hugePage - 1); p < end; p += hugePage {
		if !advisedHuge(t, p) {
			t.Errorf("the huge page at %#x of the slice [%#x, %#x) is not advised for huge pages", p, start, end)
		}
	}
	small := hugeMake[int32](3, 100)
	if len(small) != 3 || cap(small) != 100 {
		t.Fatalf("small: len %d cap %d", len(small), cap(small))
	}
}

// advisedHuge reports whether the mapping holding address p has the "hg"
// flag (MADV_HUGEPAGE) in /proc/self/smaps.
func advisedHuge(t *testing.T, p uintptr) bool {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = p >= lo && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line, " hg")
		}
	}
	t.Fatalf("no mapping holds %#x", p)
	return false
}
