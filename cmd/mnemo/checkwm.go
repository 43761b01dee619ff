package main

import (
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// storedWorkingDamage is e's engine.ErrStoredWorkingMemory: the
// working-memory configuration stored in the database (by an earlier
// open, perhaps of another build) does not build, so every context, wm
// set and working-memory route or tool fails (wm get and wm history read
// the states as stored); nil when it builds or none is stored.
// The open only logs it as a warning: before, check said "ok" over it.
func storedWorkingDamage(e *engine.Engine) error {
	if _, err := e.WorkingMemory(); errors.Is(err, engine.ErrStoredWorkingMemory) {
		return err
	}
	return nil
}

// printWorkingAdvice says on stderr, when err (storedWorkingDamage) is
// not nil, what does not build and what to do.
func (c *CheckCommand) printWorkingAdvice(err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo check: the working-memory configuration stored in the database does not build:\n  %s\n", withoutPackages(err.Error()))
	fmt.Fprintf(c.Stderr, "Every context, wm set, working-memory route and working-memory tool answer fails until it is replaced; wm get and wm history read the stored states as they are, and messages, search and export work.\n"+
		"A newer mnemo build that stored it may still use it.\n"+
		"What to do: replace it: start mnemo serve once with a --config FILE that has a \"workingMemory\" member (a schema, schemaFile or template; docs/serve.md#mnemo-json): %s\n", c.target().mnemo("serve", "--config", "FILE"))
}
