package engine_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestReplayLeaveOut: each part a replay leaves out has one documented
// name, and its other spelling ("workingMemory", "recall") sets the same
// option; another name sets nothing.
func TestReplayLeaveOut(t *testing.T) {
	for _, c := range []struct {
		part, name string
		want       engine.ReplayOptions
	}{
		{"recalled", "recalled", engine.ReplayOptions{WithoutRecalled: true}},
		{"recall", "recalled", engine.ReplayOptions{WithoutRecalled: true}},
		{"observations", "observations", engine.ReplayOptions{WithoutObservations: true}},
		{"working-memory", "working-memory", engine.ReplayOptions{WithoutWorkingMemory: true}},
		{"workingMemory", "working-memory", engine.ReplayOptions{WithoutWorkingMemory: true}},
		{"tools", "", engine.ReplayOptions{}},
		{"t1:3", "", engine.ReplayOptions{}},
	} {
		var o engine.ReplayOptions
		name, ok := o.LeaveOut(c.part)
		if name != c.name || ok != (c.name != "") || o.WithoutRecalled != c.want.WithoutRecalled ||
			o.WithoutObservations != c.want.WithoutObservations || o.WithoutWorkingMemory != c.want.WithoutWorkingMemory {
			t.Errorf("LeaveOut(%q) = %q, %v, options %+v; want %q and %+v", c.part, name, ok, o, c.name, c.want)
		}
	}
}
