package enginetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PrivateTempDir points $TMPDIR (and so os.TempDir, t.TempDir and the
// temporary files of every child process) at a new directory and returns a
// function for the end of TestMain (after TestMain removed what it made
// itself): it lists what the tests left behind in it, removes it all and
// returns an error naming the leftovers, so that a test that does not
// clean up fails the package.
//
//	func TestMain(m *testing.M) {
//		done := enginetest.PrivateTempDir()
//		code := m.Run()
//		if err := done(); err != nil { fmt.Fprintln(os.Stderr, err); code = 1 }
//		os.Exit(code)
//	}
func PrivateTempDir() func() error {
	orig := os.TempDir()
	dir, err := os.MkdirTemp(orig, "mnemo-test-tmp-")
	if err != nil {
		return func() error { return err }
	}
	os.Setenv("TMPDIR", dir)
	return func() error {
		os.Setenv("TMPDIR", orig)
		defer os.RemoveAll(dir)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if fuzzing() {
			// A fuzzing run's workers are processes that the coordinator
			// kills when the time is up: what they leave is theirs to
			// leave, and it is removed with dir.
			return nil
		}
		var left []string
		for _, e := range ents {
			left = append(left, filepath.Join(dir, e.Name()))
		}
		if len(left) > 0 {
			return fmt.Errorf("tests left temporary files behind: %s", strings.Join(left, ", "))
		}
		return nil
	}
}

// fuzzing reports whether this test binary runs a fuzz target (-test.fuzz
// given); the flags are parsed by the time TestMain's m.Run returns.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
