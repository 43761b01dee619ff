// Package shellword quotes a word for a POSIX shell, so that the commands
// mnemo suggests in its messages ("run 'mnemo --dir DIR check'") run as
// printed whatever the directory's name holds (Quote).
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so the engine (its errors'
// suggested commands) and the CLI can both use it.
package shellword
