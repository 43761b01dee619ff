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
// The new directory is made in $TMPDIR when that is set, else on a memory
// file system when the machine has one with room (memoryTempBase: Linux's
// /dev/shm with at least 2 GiB free), else in os.TempDir. The tests' files
// are removed when each test ends, and a test cannot tell a disk from memory
// short of a power cut, but the disk's fsyncs are a wait: SQLite's
// checkpoints, the indexes' and the crash harness's logs made 43,340 of
// them in one run of the engine's package and 29,048 in the CLI's, 3.4 ms
// each (median) on the CI machine's disk at load 16-19 and 0.04 ms in
// memory. TMPDIR=/tmp (or any directory) keeps the tests on that disk.
//
//	func TestMain(m *testing.M) {
//		done := enginetest.PrivateTempDir()
//		code := m.Run()
//		if err := done(); err != nil { fmt.Fprintln(os.Stderr, err); code = 1 }
//		os.Exit(code)
//	}
func PrivateTempDir() func() error {
	orig := os.TempDir()
	base := orig
	if os.Getenv("TMPDIR") == "" {
		if mem, ok := memoryTempBase(); ok {
			base = mem
		}
	}
	dir, err := os.MkdirTemp(base, "mnemo-test-tmp-")
	if err != nil && base != orig {
		dir, err = os.MkdirTemp(orig, "mnemo-test-tmp-")
	}
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
