package enginetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateTempDirPlace: the private directory is made in $TMPDIR when
// that is set, and on the memory file system when it is not and the machine
// has one with room; done removes it and restores $TMPDIR.
func TestPrivateTempDirPlace(t *testing.T) {
	mem, memOK := memoryTempBase()
	set := t.TempDir()
	for _, c := range []struct {
		name, tmpdir, want string
	}{
		{"TMPDIRSet", set, set},
		{"TMPDIRUnset", "", mem},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "" {
				t.Skipf("no memory file system with room here (memoryTempBase: %q, %v)", mem, memOK)
			}
			t.Setenv("TMPDIR", c.tmpdir)
			before := os.TempDir()
			done := PrivateTempDir()
			dir := os.TempDir()
			if filepath.Dir(dir) != c.want || !strings.HasPrefix(filepath.Base(dir), "mnemo-test-tmp-") {
				t.Errorf("TMPDIR=%q: the private directory is %s, want one in %s", c.tmpdir, dir, c.want)
			}
			if err := done(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is left after done (%v)", dir, err)
			}
			if got := os.TempDir(); got != before {
				t.Errorf("after done os.TempDir is %s, want %s", got, before)
			}
		})
	}
}
