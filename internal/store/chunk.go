package store

import "strings"

// ChunkSize is how many values InChunks binds per statement: far below
// SQLite's limit on host parameters (32,766 since 3.32), and small enough
// that a statement with two IN lists of a chunk stays under it too.
const ChunkSize = 500

// InChunks calls fn for consecutive chunks of at most ChunkSize items with
// in, the parenthesised placeholder list for the chunk ("(?,?,?)"), and the
// chunk's items as arguments. It stops at fn's first error and returns it.
// No call is made for an empty items.
func InChunks[T any](items []T, fn func(in string, args []any) error) error {
	for start := 0; start < len(items); start += ChunkSize {
		chunk := items[start:min(start+ChunkSize, len(items))]
		args := make([]any, len(chunk))
		for i, v := range chunk {
			args[i] = v
		}
		if err := fn(Placeholders(len(chunk)), args); err != nil {
			return err
		}
	}
	return nil
}

// Placeholders returns the parenthesised list of n placeholders, "(?,?)";
// n must be at least 1.
func Placeholders(n int) string {
	return "(?" + strings.Repeat(",?", n-1) + ")"
}
