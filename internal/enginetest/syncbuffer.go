package enginetest

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that a server's goroutines may write (a log,
// a command's standard error) while the test reads it: Write and String
// are safe for concurrent use. The zero value is an empty buffer.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer; it never fails.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
