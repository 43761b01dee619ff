package main

import (
	"context"
	"errors"
	"fmt"
)

// checkStage is how far a check has come: what it has verified when an
// interruption (SIGINT, SIGTERM) stops it.
type checkStage int

const (
	stageDatabase checkStage = iota // SQLite's own check of mnemo.db (checkFile)
	stageOpen                       // the data directory opening
	stageQueued                     // the indexes taking in the queued messages (indexQueued)
	stageCompare                    // the database compared with the indexes (CheckWith)
	stageIDs                        // the ids stored as ".", ".." or "erased-…" looked for
)

// interruptAt, nil but in tests, is called as a command reaches a point
// whose interruption it reports on its own ("check:compare",
// "delete:erase"): a test cancels the command's context there.
var interruptAt func(point string)

// reach records that the check has come to stage, point in interruptAt's
// words.
func (c *CheckCommand) reach(stage checkStage, point string) {
	c.stage = stage
	if interruptAt != nil {
		interruptAt("check:" + point)
	}
}

// interrupted is err, the error of a check its context stopped, said as
// what was verified by then and that nothing stored was changed; err
// itself when the check was not interrupted. It said only "context
// canceled" (brief cli45 #3).
func (c *CheckCommand) interrupted(ctx context.Context, err error, full bool) error {
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	dbCheck := "SQLite's quick_check"
	if full {
		dbCheck = "SQLite's integrity_check"
	}
	passed := ", after mnemo.db passed " + dbCheck
	if !c.prechecked {
		passed = "" // Postgres: no file check ran before
	}
	var did string
	switch c.stage {
	case stageDatabase:
		did = fmt.Sprintf("stopped during %s of mnemo.db: nothing was verified", dbCheck)
	case stageOpen:
		did = "stopped while the data directory opened" + passed + ": the indexes were not compared with it"
	case stageQueued:
		did = "stopped while the indexes took in the queued messages" + passed + ": they were not compared with the database"
	case stageCompare:
		did = "stopped while the database and the indexes were compared" + passed + ": no verdict on the indexes"
	default:
		did = "stopped after the database and the indexes were found to agree, while ids stored as \".\", \"..\" or \"erased-…\" were looked for: those are not listed"
	}
	return &interruptedError{did + "; no stored message, thread or working memory was changed (indexing done meanwhile stays); run mnemo check again for the whole verdict", err}
}
