package engine

// replayParts maps each name of a part a replay can leave out whole to
// the name it is documented by: "recalled", "observations",
// "working-memory". "workingMemory" (the JSON field's spelling, which the
// inspector took alone) and "recall" are accepted too, so that `mnemo
// replay --without` and the inspector's ?without= take the same names.
var replayParts = map[string]string{
	"recalled":       "recalled",
	"recall":         "recalled",
	"observations":   "observations",
	"working-memory": "working-memory",
	"workingMemory":  "working-memory",
}

// ReplayPartNames is how the parts LeaveOut knows are documented, for
// messages: "recalled, observations or working-memory".
const ReplayPartNames = "recalled, observations or working-memory"

// LeaveOut sets the option of o that leaves out the part named part
// ("recalled", "observations", "working-memory"; the spellings
// "workingMemory" and "recall" too) and returns the part's documented
// name, or "" and false for a name it does not know (a turn's THREAD:SEQ
// is not a name: it goes in WithoutTurns).
func (o *ReplayOptions) LeaveOut(part string) (string, bool) {
	name, ok := replayParts[part]
	switch name {
	case "recalled":
		o.WithoutRecalled = true
	case "observations":
		o.WithoutObservations = true
	case "working-memory":
		o.WithoutWorkingMemory = true
	}
	return name, ok
}
