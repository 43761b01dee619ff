package main

import (
	"fmt"
	"path/filepath"

	"github.com/mnemo-go/mnemo/engine"
)

// lockedAdvice is said after a command's error matching
// engine.ErrDatabaseLocked: another program holds dir's mnemo.db in
// locking_mode EXCLUSIVE, which only its closing ends.
func lockedAdvice(dir string) string {
	db := filepath.Join(dir, engine.DatabaseFile)
	return fmt.Sprintf("What to do: another program holds %s locked (a sqlite3 shell or a script that ran PRAGMA locking_mode=EXCLUSIVE keeps it until it closes the file), "+
		"and mnemo can neither read nor write it meanwhile. Find that program with 'fuser -v %s' (or 'lsof %s'), quit it, then run the command again.", db, db, db)
}
