package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// catchUpHint writes to w (stderr), after a search or context whose
// retrieval statuses say an index is still catching up
// (recall.StatusCatchingUp on either channel, or vector "degraded: N of M
// messages not embedded yet"), that the indexing runs only while an engine is open: a
// one-shot command gets it one batch or more further (Close finishes the
// batch in flight, engine.CloseDrainWait), so running search again gets
// there step by step, and says what finishes it at once (`mnemo check`,
// or a running `mnemo serve`). Nothing is written when both channels are
// caught up.
func catchUpHint(w io.Writer, command string, t target, lexical, vector string) {
	if lexical != recall.StatusCatchingUp && vector != recall.StatusCatchingUp && !strings.Contains(vector, "not embedded yet") {
		return
	}
	fmt.Fprintf(w, "mnemo %s: the indexes are catching up: %s\n", command, catchUpHow("them", t))
}

// readCatchUpHow says how indexing that is behind gets on (what: "the
// rebuild") for command, one that only reads (Main.readsOnly: its engine
// runs no outbox drainer, engine.Config.KeepOutbox): it gets none of it
// done, and leaves it to the next command that writes or searches
// (catchUpHow), to mnemo check or a running mnemo serve.
func readCatchUpHow(command, what string, t target) string {
	return fmt.Sprintf("mnemo %s only reads: it leaves %s to the next command that writes or searches, which gets it a batch (512 messages) or more further before it exits; a running mnemo serve does it in the background; to finish it now, run: %s", command, what, t.mnemo("check"))
}

// catchUpHow says how indexing that is behind gets on (what: "them", "the
// rebuild"): each one-shot command gets what a batch (512 messages) or
// more further before it exits, waiting at most engine.CloseDrainWait
// for it; mnemo check finishes it, as a running mnemo serve does in the
// background. catchUpHint and the warning of a quarantine
// (sayQuarantined) both say it; a command that only reads says
// readCatchUpHow instead.
func catchUpHow(what string, t target) string {
	return fmt.Sprintf("each command gets %s a batch (512 messages) or more further before it exits, waiting at most %s for it; a running mnemo serve does it in the background; to finish it now, run: %s", what, engine.CloseDrainWait, t.mnemo("check"))
}
