package filekind_test

import (
	"io/fs"
	"testing"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// TestOf: each kind of file has one name, used by the engine ("mnemo.db
// is a pipe") and by mnemo ingest ("the pipe F is named twice"). Before,
// the engine said "a named pipe" and "not a regular file", and ingest
// "pipe" and "file" for the same modes; and a regular file or a link was
// "special file" (mnemo backup: "/tmp/afile is a special file").
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		mode fs.FileMode
		want string
	}{
		{fs.ModeDir | 0o700, "directory"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o620, "device"},
		{fs.ModeDevice | 0o660, "device"},
		{fs.ModeNamedPipe | 0o600, "pipe"},
		{fs.ModeSocket | 0o755, "socket"},
		{fs.ModeIrregular, "special file"},
		{0o644, "regular file"},
		{fs.ModeSymlink | 0o777, "symbolic link"},
	} {
		if got := filekind.Of(tc.mode); got != tc.want {
			t.Errorf("Of(%v) = %q, want %q", tc.mode, got, tc.want)
		}
	}
}
