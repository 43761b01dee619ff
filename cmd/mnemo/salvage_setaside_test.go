package main

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSalvageWALSetAsideNote: a salvage whose copy's log was set aside
// (the directory's -shm said a checkpoint had copied frames past the
// log's valid prefix into mnemo.db: engine.TestSalvageCheckpointedDamage)
// says so, and says nothing was lost when every frame was checkpointed;
// before, printWAL took it for commits not applied ("warning: … could not
// be applied"). The ending says check passes unless frames were lost.
func TestSalvageWALSetAsideNote(t *testing.T) {
	for _, tc := range []struct {
		name       string
		d          engine.WALDamage
		want, not  []string
		checkFails bool
	}{
		{"Swapped", engine.WALDamage{Log: "/d/mnemo.db-wal", Kept: "/d/mnemo.db.damaged-X-wal", SetAside: true, AppliedThroughFrame: 14},
			[]string{"note: the write-ahead log was found damaged", "frames through 14 into mnemo.db", "kept as /d/mnemo.db.damaged-X-wal", "nothing was lost"},
			[]string{"warning", "NOT"}, false},
		{"SwappedLost", engine.WALDamage{Log: "/d/mnemo.db-wal", Kept: "/d/mnemo.db.damaged-X-wal", SetAside: true, AppliedThroughFrame: 14, FramesNotApplied: 3, CommitsNotApplied: 1},
			[]string{"1 commit (3 frames) after frame 14 are NOT in the salvaged database", "kept only in /d/mnemo.db.damaged-X-wal"},
			[]string{"nothing was lost"}, true},
		{"Sound", engine.WALDamage{Log: "/d/mnemo.db-wal", SetAside: true, AppliedThroughFrame: 14},
			[]string{"note: the write-ahead log /d/mnemo.db-wal is damaged", "nothing was lost", "the next open sets the log aside unapplied"},
			[]string{"warning", "NOT"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, notes strings.Builder
			c := &SalvageCommand{Main: &Main{Stdout: &out, Stderr: &notes}}
			c.printWAL(&tc.d)
			// A note, on standard error under the command's name, as
			// check's are (cli58: it was on standard output).
			if out.String() != "" || !strings.HasPrefix(notes.String(), "mnemo salvage: note: ") {
				t.Errorf("printWAL: stdout %q, stderr %q; want the note on stderr alone", out.String(), notes.String())
			}
			out.WriteString(notes.String())
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("printWAL: %q, want %q", out.String(), w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("printWAL: %q, want no %q", out.String(), n)
				}
			}
			out.Reset()
			if err := c.printEnd(&engine.SalvageReport{Damaged: "/d/mnemo.db.damaged-X", WAL: &tc.d}); err != nil {
				t.Fatal(err)
			}
			if fails := strings.Contains(out.String(), "mnemo check fails"); fails != tc.checkFails {
				t.Errorf("printEnd: %q, want check failing: %v", out.String(), tc.checkFails)
			}
		})
	}
}
