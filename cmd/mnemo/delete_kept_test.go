package main

import (
	"strings"
	"testing"
)

// TestDeleteKeptNote: mnemo delete's note on the kept files counts the
// copies of the database file (a salvage's, an open's before-wal copy)
// apart from the copies of a write-ahead log or its -shm and the index
// directories a salvage kept; it counted them all as "damaged database
// files" (a repaired log and its -shm: "2 damaged database files"), and
// then a kept index directory as a copy of the database file.
func TestDeleteKeptNote(t *testing.T) {
	for _, tc := range []struct {
		kept []string
		want string
	}{
		{[]string{"mnemo.db-wal.damaged-C", "mnemo.db-shm.damaged-C"}, "note: 2 copies of its write-ahead log or -shm, kept in"},
		{[]string{"mnemo.db.damaged-A"}, "note: 1 copy of the database file, kept in"},
		{[]string{"mnemo.db.damaged-A", "mnemo.db.damaged-A-index"}, "note: 1 copy of the database file and 1 copy of its indexes, kept in"},
		{[]string{"mnemo.db.damaged-A", "mnemo.db.damaged-A-wal", "mnemo.db.damaged-A-shm", "mnemo.db.before-wal-B", "mnemo.db-wal.damaged-C", "mnemo.db-shm.damaged-C"},
			"note: 2 copies of the database file and 4 copies of its write-ahead log or -shm, kept in /d by"},
	} {
		var stderr strings.Builder
		c := &DeleteCommand{Main: &Main{Dir: "/d", Stderr: &stderr}}
		c.noteKeptDamaged(tc.kept)
		if !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "("+strings.Join(tc.kept, ", ")+")") {
			t.Errorf("kept %v: %q, want %q naming each", tc.kept, stderr.String(), tc.want)
		}
	}
}
