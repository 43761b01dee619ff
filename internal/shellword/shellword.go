package shellword

import "strings"

// plain are the bytes a word may hold and stay unquoted.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-"

// Quote returns s as one word of a POSIX shell command line: s itself when
// it is not empty and holds only letters, digits and _./:@%+=,-; else s in
// single quotes, each single quote in it closed, escaped with a backslash
// and opened again (POSIX.1-2017, Shell Command Language §2.2.3: nothing
// inside single quotes is special but the quote).
func Quote(s string) string {
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
