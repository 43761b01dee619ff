package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
)

// summary is an import's counts for a person: "1 resource, 2 threads, 3
// messages stored, 0 already stored, 0 skipped", when some tool results
// answer no call (printUnpaired lists them) "; 2 tool results answer no
// call", and when some lines had
// members mnemo does not store (importer.Report.Unstored) "; 3 lines had
// members mnemo does not store: refusal, annotations"; "no messages read,
// nothing stored" when the input held no record.
func summary(r *importer.Report) string {
	if r.Resources == 0 && r.Threads == 0 && r.Messages == 0 && r.Duplicates == 0 && r.Skipped == 0 && r.Unstored == 0 && r.Stopped == "" && r.WorkingMemory+r.WorkingMemorySame == 0 &&
		r.Dispatches+r.DispatchesSame == 0 {
		// An empty input (a filter that matched nothing): said so, not
		// as a row of zero counts.
		return "no messages read, nothing stored"
	}
	s := fmt.Sprintf("%s, %s, %s stored, %d already stored, %d skipped",
		count(r.Resources, "resource"), count(r.Threads, "thread"), count(r.Messages, "message"), r.Duplicates, r.Skipped)
	if r.WorkingMemory+r.WorkingMemorySame > 0 {
		s += fmt.Sprintf("; %s set, %d already as given", count(r.WorkingMemory, "working-memory state"), r.WorkingMemorySame)
	}
	if r.Dispatches+r.DispatchesSame > 0 {
		s += fmt.Sprintf("; %s restored, %d already stored", count(r.Dispatches, "dispatch"), r.DispatchesSame)
	}
	switch {
	case r.Unpaired == 1:
		s += "; 1 tool result answers no call"
	case r.Unpaired > 1:
		s += fmt.Sprintf("; %d tool results answer no call", r.Unpaired)
	}
	switch {
	case r.UnpairedEarlier == 0:
	case r.UnpairedEarlier == r.Unpaired:
		s += " (stored by an earlier import)"
	default:
		s += fmt.Sprintf(" (%d of them stored by an earlier import)", r.UnpairedEarlier)
	}
	switch {
	case r.Unstored == 1 && len(r.UnstoredMembers) == 1:
		s += "; 1 line had a member mnemo does not store: " + r.UnstoredMembers[0]
	case r.Unstored == 1:
		s += "; 1 line had members mnemo does not store: " + strings.Join(r.UnstoredMembers, ", ")
	case r.Unstored > 1:
		s += fmt.Sprintf("; %d lines had members mnemo does not store: %s", r.Unstored, strings.Join(r.UnstoredMembers, ", "))
	}
	return s
}

// addUnstored adds rep's lines with members mnemo does not store to
// total's, each member named once.
func addUnstored(total, rep *importer.Report) {
	total.Unstored += rep.Unstored
	for _, m := range rep.UnstoredMembers {
		if !slices.Contains(total.UnstoredMembers, m) {
			total.UnstoredMembers = append(total.UnstoredMembers, m)
		}
	}
}

// printUnpaired lists on standard error the first of rep's tool results
// that answer no call of their thread (importer.Report.UnpairedFirst),
// and how many more there are: they are stored, but every context leaves
// them out, which the import said nothing of.
func (c *IngestCommand) printUnpaired(label string, rep *importer.Report) {
	for _, u := range rep.UnpairedFirst {
		stored := "stored"
		if u.Earlier {
			stored = "stored by an earlier import" // the same file again: not new
		}
		fmt.Fprintf(c.Stderr, "unpaired: %s: tool_call_id %q (thread %s, seq %d) answers no call before it: %s, but every context leaves it out (memctx reason orphan-tool-result); give the assistant message making the call before it\n",
			(&importer.RecordError{File: label, Where: u.Where}).Record(), u.ToolCallID, u.Thread, u.Seq, stored)
	}
	switch more := rep.Unpaired - len(rep.UnpairedFirst); {
	case more == 1:
		fmt.Fprintf(c.Stderr, "unpaired: %s: 1 more tool result answers no call\n", label)
	case more > 1:
		fmt.Fprintf(c.Stderr, "unpaired: %s: %d more tool results answer no call\n", label, more)
	}
	if rep.UnpairedUnchecked > 0 {
		fmt.Fprintf(c.Stderr, "unpaired: %s: %s not checked (more than %d lookups of a thread's calls in one batch, or a call not among the %d messages before its result)\n", label, count(rep.UnpairedUnchecked, "tool result"), engine.MaxPairLookups, engine.UnpairedWindow)
	}
}
