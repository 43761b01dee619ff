package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// lostRowsHeld says, per table, what rows a salvage could not keep held,
// for the tables whose loss "no message lost" does not cover: the messages
// (their lost seqs are listed), the threads (rebuilt from their messages)
// and what the indexes are rebuilt from (embeddings, outbox) are left out.
// readme59 found a salvage that lost the journal's root page print "no
// message lost" and nothing else, and `mnemo memctx` of the lost run then
// blame retention.
var lostRowsHeld = map[string]string{
	"journal":                "run records (mnemo memctx and replay of those runs find none), memoized model calls and recorded tool results (made again when asked again), erasure and loss markers",
	"runs":                   "run id claims (a lost run's id may be taken again)",
	"working_memory":         "working-memory states (those threads or resources start from the template again)",
	"working_memory_history": "working-memory versions",
	"working_config":         "the stored working-memory configuration (written again by the next open that configures one)",
	"observations":           "observations and reflections",
	"dispatches":             "dispatch records (a side effect recorded as begun or done may be made again)",
}

// printLostRows writes one line for each table of lostRowsHeld whose rows
// the salvage could not keep: on unreadable pages, missing from the
// damaged schema, refused or garbled.
func printLostRows(w io.Writer, tables []engine.SalvageTable) {
	for _, t := range tables {
		held, ok := lostRowsHeld[t.Name]
		if !ok || (len(t.Unreadable) == 0 && !t.Missing && t.Invalid+t.Garbled == 0) {
			continue
		}
		how := "were on damaged pages"
		switch {
		case t.Missing:
			how = "were lost with the table"
		case len(t.Unreadable) == 0:
			how = fmt.Sprintf("were refused or garbled (%d)", t.Invalid+t.Garbled)
		}
		fmt.Fprintf(w, "rows of %s %s and are lost, with what they held: %s\n", t.Name, how, held)
	}
}

// printFromPages writes one line naming the tables some of whose rows
// were kept from their leaf pages, which SQLite did not read whole: below
// a damaged interior page that hid them, or a leaf whose cell count was
// garbled (engine.SalvageTable.FromPages).
func printFromPages(w io.Writer, tables []engine.SalvageTable) {
	var parts []string
	for _, t := range tables {
		if t.FromPages > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", t.Name, t.FromPages))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "rows kept from leaf pages SQLite could not read (below a damaged interior page, or a garbled cell count; counted in kept): %s\n", strings.Join(parts, ", "))
	}
}

// printMarkersLost writes the seqs whose erasure tombstones (or earlier
// losses' records) were among the journal's lost rows while no message
// was lost (engine.SalvageReport.MarkersLost): marked erased again, not
// lost. Before, they were listed as messages lost (readme71 F4).
func printMarkersLost(w io.Writer, markers []engine.LostRange) {
	if len(markers) == 0 {
		return
	}
	n := int64(0)
	for _, m := range markers {
		n += m.ToSeq - m.FromSeq + 1
	}
	fmt.Fprintf(w, "%s neither stored nor marked: no message was lost (the messages table was read whole), so their erasure markers (or an earlier salvage's records of their loss) were among the journal's lost rows; marked erased again, not lost:\n", count(int(n), "seq"))
	for _, m := range markers {
		seqs := fmt.Sprintf("seq %d", m.FromSeq)
		if m.ToSeq > m.FromSeq {
			seqs = fmt.Sprintf("seqs %d-%d", m.FromSeq, m.ToSeq)
		}
		fmt.Fprintf(w, "  thread %s (resource %s): %s\n", m.ThreadID, m.ResourceID, seqs)
	}
}
