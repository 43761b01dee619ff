package main

import (
	"os"
	"testing"
)

// TestFileNamedLikePackage: a file argument named like one of mnemo's Go
// packages ("engine", "server") is named in the error: the CLI drops the
// packages' names that begin an error's parts, and dropped the file's
// name with them ("mnemo ingest: no such file or directory").
func TestFileNamedLikePackage(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("store", 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{"engine", "mnemo ingest: engine: no such file or directory (nothing was stored)\n"},
		{"server", "mnemo ingest: server: no such file or directory (nothing was stored)\n"},
		{"store", "mnemo ingest: store: is a directory, not a file (nothing was stored)\n"},
	} {
		code, _, stderr := run(t, nil, "--dir", "d", "ingest", c.file)
		if code != 1 || stderr != c.want {
			t.Errorf("ingest %s: exit %d, stderr %q; want 1 and %q", c.file, code, stderr, c.want)
		}
	}
}
