package engine

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/mnemo-go/mnemo/internal/store"
)

// StrayLogs lists, sorted, the base names of the regular files in the
// data directory dir (not below it) that begin as a SQLite write-ahead
// log (store.BeginsAsWAL: the magic 0x377f0682 or 0x377f0683) and are
// neither mnemo.db-wal nor a copy KeptDamaged lists: a log moved or
// copied there by hand, such as mnemo.db-wal renamed while a server
// wrote it (ErrWALReplaced; readme71 F5). Such a file holds the text of
// the messages written to it, which no erasure reaches, and no open reads
// it. Nil when there are none, or dir cannot be read.
func StrayLogs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	kept := KeptDamaged(dir)
	var stray []string
	for _, ent := range ents {
		name := ent.Name()
		if !ent.Type().IsRegular() || name == DatabaseFile+"-wal" || slices.Contains(kept, name) {
			continue
		}
		if store.BeginsAsWAL(filepath.Join(dir, name)) {
			stray = append(stray, name)
		}
	}
	return stray
}
