package main

import "fmt"

// printConfigAdvice says on stderr, when the stored configuration could
// not be read or applied (c.configDamage), that the check found it, that
// the check ran with the defaults, and what to do; for a check that ran
// (res not nil) and found nothing else, what passed. A malformed
// mnemo.json fails every command but check and salvage
// (Main.damagedConfig): before, check refused to run with exit 1, as the
// others did.
func (c *CheckCommand) printConfigAdvice(res *checkResult, full bool) {
	d := c.configDamage
	if d == nil {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo check: the stored configuration cannot be used:\n  %v\n", d.Err)
	fmt.Fprintf(c.Stderr, "The check ran with the engine's defaults on the data directory's own files (%s names no store, and none of its settings changes what a check reads); "+
		"every other command but mnemo salvage refuses to run until it is fixed.\nWhat to do: %s\n", StoredConfigFile, d.advice())
	if res != nil && res.found == nil {
		fmt.Fprintf(c.Stderr, "Apart from it, the check passed: %s.\n", c.passed(full))
	}
}
