package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mnemo-go/mnemo/importer"
)

// DefaultMaxSpool is the most `mnemo ingest` copies of standard input, a
// pipe, a FIFO or a device to the temporary directory (--max-spool): 1 GiB,
// 60 times the largest shared set (LongMemEval s dev34, 17 MB for 34
// questions) and about 4 times the whole of LongMemEval s at that rate
// (500 questions, ~260 MB). A regular FILE is read in
// place and not bounded. Without it `mnemo ingest /dev/zero` (or an
// endless `yes |`) filled the temporary directory until ENOSPC.
const DefaultMaxSpool = 1 << 30

// spoolStdin copies standard input to a private temporary file (the
// importers detect formats and count progress on files) and returns its
// path and a cleanup, as spool does: at most maxBytes of it.
func (c *IngestCommand) spoolStdin(ctx context.Context, maxBytes int64) (string, func(), error) {
	path, cleanup, err := spool(ctx, c.Stdin, "", maxBytes)
	var we *spoolWriteError
	var le *spoolLimitError
	if errors.As(err, &we) || errors.As(err, &le) {
		return "", nil, fmt.Errorf("stdin: %w (nothing of it was stored)", err)
	} else if err != nil {
		return "", nil, fmt.Errorf("read standard input: %w", err)
	}
	return path, cleanup, nil
}

// spool copies what r reads to a private temporary file in os.TempDir()
// ($TMPDIR, else /tmp) and returns a path that reads it and a cleanup
// that frees it (call it once the import is done).
//
// The file has no name once it is created: it is unlinked at once and
// read through /proc/self/fd/N, so that nothing is left in the temporary
// directory however the process ends (a second SIGINT, SIGKILL,
// `timeout`): the kernel frees it when the process exits. Before, a
// process stopped mid-copy left /tmp/mnemo-ingest-* behind (4 GB seen).
// Where /proc/self/fd does not open the file (not Linux), it keeps its
// name, "mnemo-ingest-*" ending in ext, until cleanup removes it. The
// returned path has no extension then on Linux: a caller that detects
// the format by it uses ext (spoolFormat).
//
// It stops with ctx's error at the first read after ctx is done. A write
// that fails (the temporary directory full: ENOSPC, EDQUOT) returns a
// *spoolWriteError naming the directory; more than maxBytes to copy, a
// *spoolLimitError, before the bytes past maxBytes are written (maxBytes
// itself is copied). The copy is freed in any error.
func spool(ctx context.Context, r io.Reader, ext string, maxBytes int64) (string, func(), error) {
	f, err := os.CreateTemp("", "mnemo-ingest-*"+ext)
	if err != nil {
		return "", nil, fmt.Errorf("create a file in the temporary directory %s ($TMPDIR): %w", os.TempDir(), err)
	}
	path, cleanup := f.Name(), func() { f.Close(); os.Remove(f.Name()) }
	if fd := fmt.Sprintf("/proc/self/fd/%d", f.Fd()); sameOpenFile(fd, f) && os.Remove(f.Name()) == nil {
		path, cleanup = fd, func() { f.Close() }
	}
	w := &spoolWriter{f: f, max: maxBytes}
	if _, err := io.Copy(w, ctxReader{ctx, r}); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// spoolFormat is the --format to import the spooled copy of name with:
// format, but jsonl for "auto" when name ends in .jsonl or .ndjson, the
// extension importer.Detect reads, which the copy's path lacks.
func spoolFormat(format, name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson":
		if format == "auto" {
			return importer.FormatJSONL
		}
	}
	return format
}

// sameOpenFile reports whether path opens f (the file, not a copy).
func sameOpenFile(path string, f *os.File) bool {
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := f.Stat()
	return err == nil && os.SameFile(a, b)
}

// spoolWriter writes to the spool file f, counting the bytes written and
// wrapping a failed write in a *spoolWriteError; a write that would take
// them past max (> 0) writes nothing and fails with a *spoolLimitError.
type spoolWriter struct {
	f   *os.File
	n   int64
	max int64
}

func (w *spoolWriter) Write(p []byte) (int, error) {
	if w.max > 0 && w.n+int64(len(p)) > w.max {
		return 0, &spoolLimitError{Max: w.max}
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err != nil {
		err = &spoolWriteError{Dir: os.TempDir(), Copied: w.n, Err: err}
	}
	return n, err
}

// spoolWriteError is a write to the spool file that failed: Dir is the
// temporary directory, Copied the bytes written before, Err the write's
// error (errors.Is sees syscall.ENOSPC when Dir is full).
type spoolWriteError struct {
	Dir    string
	Copied int64
	Err    error
}

// Error says the directory is full (ENOSPC, EDQUOT) and how to give it
// room, else the write's error: "the temporary directory /tmp ($TMPDIR)
// is full: no space left on device after 4.0 GB copied to it; set TMPDIR
// to a directory with room".
func (e *spoolWriteError) Error() string {
	if errors.Is(e.Err, syscall.ENOSPC) || errors.Is(e.Err, syscall.EDQUOT) {
		cause := e.Err
		var pe *os.PathError
		if errors.As(cause, &pe) {
			cause = pe.Err // not the file's path: it has none (spool)
		}
		return fmt.Sprintf("the temporary directory %s ($TMPDIR) is full: %v after %s copied to it; set TMPDIR to a directory with room",
			e.Dir, cause, byteSize(e.Copied))
	}
	return fmt.Sprintf("write a copy to the temporary directory %s ($TMPDIR): %v", e.Dir, e.Err)
}

func (e *spoolWriteError) Unwrap() error { return e.Err }

// spoolLimitError is an input to copy that passes --max-spool (Max, in
// bytes): the copy stopped there.
type spoolLimitError struct{ Max int64 }

// Error names the flag and the two ways on: "passes --max-spool 1GiB,
// the most ingest copies of standard input, a pipe or a device to
// $TMPDIR: give a larger --max-spool, or save it to a file and ingest the
// file by its name, which is read in place, not copied".
func (e *spoolLimitError) Error() string {
	return fmt.Sprintf("passes --max-spool %s, the most ingest copies of standard input, a pipe or a device to $TMPDIR: "+
		"give a larger --max-spool, or save it to a file and ingest the file by its name, which is read in place, not copied", flagByteSize(e.Max))
}

// ctxReader reads r until ctx is done, then fails with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
