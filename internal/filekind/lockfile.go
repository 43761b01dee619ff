package filekind

import (
	"fmt"
	"os"
)

// OpenLock opens the lock file at path for reading and writing, creating
// it (mode 0600) when it does not exist; the caller then locks it,
// truncates it and writes its holder into it. It does not follow a
// symbolic link and refuses what is not a regular file, with a
// *NotRegularError: a lock file linked to another file (a restored
// archive, a planted link) had that file truncated and overwritten by
// every open, as its owner (/etc/passwd for a command run as root). The
// check before the open names the link's target; O_NOFOLLOW (unix)
// closes the race with a link made meanwhile. Any other failure is the
// open's *fs.PathError.
//
// The engine's LOCK and mnemo serve's serve.lock are opened by it.
func OpenLock(path string) (*os.File, error) {
	linked := func() error {
		if target, err := os.Readlink(path); err == nil {
			return &NotRegularError{Path: path, Kind: "symbolic link", Target: target}
		}
		return nil
	}
	if err := linked(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|NoFollow, 0o600)
	if err != nil {
		if lerr := linked(); lerr != nil {
			return nil, lerr
		}
		if fi, serr := os.Lstat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Kind: Of(fi.Mode())} // a directory: EISDIR
		}
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Of(fi.Mode())}
	}
	return f, nil
}

// NotRegularError is returned by OpenLock when the lock file is a symbolic
// link or not a regular file. Nothing was written.
type NotRegularError struct {
	// Path is the lock file as named.
	Path string
	// Kind is "symbolic link", or Of's name of the file's kind.
	Kind string
	// Target is a symbolic link's target; "" for another kind.
	Target string
}

// Error says what the file is and to remove it: "the lock file P is a
// symbolic link (to T), which mnemo does not follow: it writes the lock
// file; remove the link", "the lock file P is a pipe, not a regular file:
// remove it".
func (e *NotRegularError) Error() string {
	if e.Kind == "symbolic link" {
		return fmt.Sprintf("the lock file %s is a symbolic link (to %s), which mnemo does not follow: it writes the lock file; remove the link", e.Path, e.Target)
	}
	return fmt.Sprintf("the lock file %s is a %s, not a regular file: remove it", e.Path, e.Kind)
}
