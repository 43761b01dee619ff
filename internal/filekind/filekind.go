package filekind

import "io/fs"

// Of names the kind of a file by its mode (as os.Lstat gives it), as a
// noun that takes "a": "regular file", "symbolic link", "directory",
// "device" (character or block), "pipe" (a FIFO, or the anonymous pipe a
// shell gives as standard input: their modes are the same), "socket",
// else "special file".
func Of(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
