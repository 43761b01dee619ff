package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-go/mnemo/recall"
)

// catchUpHint writes to w (stderr), after a search or context whose
// retrieval statuses say an index is still catching up (lexical
// recall.StatusCatchingUp, or vector "degraded: N of M messages not
// embedded yet"), that the indexing runs only while an engine
// is open: a one-shot command closes it when it exits, so the backlog a
// killed process or a quarantined index left is not worked off by running
// search again, and says what finishes it (`mnemo check`, or a running
// `mnemo serve`). Nothing is written when both channels are caught up.
func catchUpHint(w io.Writer, command, lexical, vector string) {
	if lexical != recall.StatusCatchingUp && !strings.Contains(vector, "not embedded yet") {
		return
	}
	fmt.Fprintf(w, "mnemo %s: the indexes catch up only while mnemo runs, and that stops when this command exits: 'mnemo check' finishes it (a running 'mnemo serve' does it in the background)\n", command)
}
