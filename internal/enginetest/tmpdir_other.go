//go:build !linux

package enginetest

// memoryTempBase reports no memory file system outside Linux:
// PrivateTempDir then uses os.TempDir.
func memoryTempBase() (string, bool) { return "", false }
