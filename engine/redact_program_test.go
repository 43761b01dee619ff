package engine

import (
	"regexp/syntax"
	"testing"
)

// maxBacktrackProg is the largest program (instructions) Go's regexp runs
// with its bit-state backtracker (regexp/backtrack.go); a larger one runs
// on the NFA, which copies every thread's submatch slots at each byte.
const maxBacktrackProg = 500

// TestAssignmentProgramBacktracks checks that the assignment rule's
// program stays small enough for the backtracker: at 513 instructions
// (b89cd14d) the rule ran on the NFA, and BenchmarkRedactorMB's
// assignment-lines took 1.4 times as long as at 478 (red53).
// keyAssignmentPattern, assignment-key's, is checked too (red64).
func TestAssignmentProgramBacktracks(t *testing.T) {
	for name, pattern := range map[string]string{"assignmentPattern": assignmentPattern, "keyAssignmentPattern": keyAssignmentPattern} {
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		if n := len(prog.Inst); n > maxBacktrackProg {
			t.Errorf("%s: %d instructions, want at most %d (Go's backtracker): write a shared part once, or split the rule", name, n, maxBacktrackProg)
		}
	}
}
