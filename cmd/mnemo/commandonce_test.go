package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// TestErrorNamesCommandOnce: an error that begins with the command's name
// after its package's (the engine's "engine: salvage: …") is said under
// the command's name once: "mnemo salvage: put the salvaged database in
// place: …", where it read "mnemo salvage: salvage: put …". A name
// elsewhere in the text stays.
func TestErrorNamesCommandOnce(t *testing.T) {
	for _, c := range []struct{ name, err, want string }{
		{"salvage", "engine: salvage: put the salvaged database in place: " + os.ErrPermission.Error(),
			"mnemo salvage: put the salvaged database in place: permission denied\n"},
		{"check", "engine: check: read: boom", "mnemo check: read: boom\n"},
		{"threads", "engine: list threads: salvage: x", "mnemo threads: list threads: salvage: x\n"},
	} {
		var errOut strings.Builder
		m := &Main{Stdout: io.Discard, Stderr: &errOut}
		if code := m.exitStatus(context.Background(), c.name, fmt.Errorf("%s", c.err)); code != 1 || errOut.String() != c.want {
			t.Errorf("%s: exit %d, %q; want 1, %q", c.name, code, errOut.String(), c.want)
		}
	}
}
