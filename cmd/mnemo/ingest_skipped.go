package main

import "fmt"

// exitSkipped is the exit status of an ingest that stored its input but
// for some records it skipped (malformed, or refused by the engine),
// without --strict: a script must tell it from 0, every record stored,
// and from 1, the ingest failed.
const exitSkipped = 3

// skippedError is the outcome of an ingest without --strict that
// skipped records and otherwise completed: each was named on standard
// error ("skipped: …") and the rest is stored; exitStatus exits
// exitSkipped. It matches no other error: it is not a usage error.
type skippedError struct {
	skipped int // records skipped, over every FILE
}

func (e *skippedError) Error() string {
	records := fmt.Sprintf("%d records were skipped, each named above", e.skipped)
	if e.skipped == 1 {
		records = "1 record was skipped, named above"
	}
	return records + "; every other record is stored: fix those and ingest the file again to store them (stored messages are not stored twice), or give --strict to stop at the first one"
}
