package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// checkDerivedTables adds a problem for each table the schema derives by
// triggers that disagrees with its source: journal_tool_obs (the
// observation ids each recorded tool result lists, by which an erasure
// finds the results to delete) with the journal, message_calls (the calls
// each assistant message made) with the messages. Without full only rows
// whose source row is gone are counted (an index lookup each); with full
// every row is recomputed from its source, rows missing too. Reindex
// rebuilds both (rebuildDerivedTables).
func (e *Engine) checkDerivedTables(ctx context.Context, full bool, add func(string, ...any)) error {
	links, err := journal.CheckRecalledLinks(ctx, e.db, full)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	calls, err := e.ms.CheckCalls(ctx, full)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	addMismatch(add, full, links, "journal_tool_obs", "link", "links", "the tool results recorded",
		"an erasure finds the results listing an observation it invalidates by them", "the journal")
	addMismatch(add, full, calls, "message_calls", "call", "calls", "the assistant messages' tool calls",
		"a tool result's call is found by them", "the messages")
	return nil
}

// addMismatch adds the problem of table's rows m counted (full: against
// what source makes; else the rows whose source row is gone), nothing
// when there is none.
func addMismatch(add func(string, ...any), full bool, m store.Mismatch, table, one, many, source, why, from string) {
	switch {
	case m == store.Mismatch{}:
	case full:
		add("%s: %s missing and %s extra against %s (%s): mnemo reindex rebuilds it from %s",
			table, count(m.Missing, one, many), count(m.Extra, one, many), source, why, from)
	default:
		add("%s: %s of no row of %s (%s): mnemo reindex rebuilds it from %s (mnemo check --full also finds those missing)",
			table, count(m.Extra, one, many), from, why, from)
	}
}

// rebuildDerivedTables is Reindex's repair of the tables checkDerivedTables
// compares: journal_tool_obs and message_calls written again from their
// sources in one transaction.
func (e *Engine) rebuildDerivedTables(ctx context.Context) error {
	return e.tx(ctx, func(tx *store.Tx) error {
		if err := journal.RebuildRecalledLinks(ctx, tx); err != nil {
			return err
		}
		if err := msgstore.RebuildCalls(ctx, tx); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		return nil
	})
}
