package main

import (
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestParseWithout: --without takes the inspector's spelling of the
// working memory, workingMemory, beside working-memory (one table of names:
// engine.ReplayOptions.LeaveOut); it refused workingMemory as "not
// recalled, observations, working-memory or THREAD:SEQ".
func TestParseWithout(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    engine.ReplayOptions
		wantErr bool
	}{
		{"working-memory", engine.ReplayOptions{WithoutWorkingMemory: true}, false},
		{"workingMemory", engine.ReplayOptions{WithoutWorkingMemory: true}, false},
		{"recalled, observations", engine.ReplayOptions{WithoutRecalled: true, WithoutObservations: true}, false},
		{"recall,a:b:3", engine.ReplayOptions{WithoutRecalled: true, WithoutTurns: []engine.TurnRef{{ThreadID: "a:b", Seq: 3}}}, false},
		{"memory", engine.ReplayOptions{}, true},
		// A thread id that cannot be (a space) is refused; it replayed
		// the run saying the removals asked matched nothing.
		{"a b:3", engine.ReplayOptions{}, true},
		{"recalled,the garden:1", engine.ReplayOptions{}, true},
	} {
		got, err := parseWithout(c.in)
		if (err != nil) != c.wantErr || (err == nil && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("parseWithout(%q) = %+v, %v; want %+v (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}
