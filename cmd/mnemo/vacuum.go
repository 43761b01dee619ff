package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/engine"
)

func init() {
	commands["vacuum"] = command{"reclaim the space erased rows left (Postgres: VACUUM of the tables erasure touches; --full rewrites them)", func(m *Main) Command { return &VacuumCommand{m} }}
}

// VacuumCommand is `mnemo vacuum`: the operator's command after erasures
// (engine.Engine.Vacuum). Like every command it embeds Main: the process
// environment and the global flags.
type VacuumCommand struct{ *Main }

// Run parses the flags of `mnemo vacuum` from args and runs it.
func (c *VacuumCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("vacuum", "")
	full := fs.Bool("full", false, "Postgres: VACUUM FULL, which writes each table anew and unlinks the old file; it locks each table against every read and write while it runs")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.noArgs(fs, "")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	res, err := e.Vacuum(ctx, *full)
	if err != nil {
		return vacuumStopped(ctx, res, err)
	}
	if *asJSON {
		if err := c.printJSON(res); err != nil {
			return err
		}
		c.finished()
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tbefore\tafter\t")
	for _, t := range res.Tables {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.Name, mibs(t.BytesBefore), sizeAfter(t.BytesAfter))
	}
	before, after := tableSums(res.Tables)
	fmt.Fprintf(tw, "total\t%s\t%s\t\n", before, after)
	if err := tw.Flush(); err != nil {
		return err
	}
	c.explainVacuum(res.Backend, *full)
	c.finished()
	return nil
}

// vacuumStopped is err, the error of a vacuum, said as what was done
// when its context stopped it after part of its work
// (engine.ErrVacuumIncomplete): on SQLite that the file was rewritten and
// its checkpoint is completed by the close; on Postgres which tables
// were vacuumed (res). It said only "context canceled" (brief cli45 #4),
// so a script ran the finished rewrite again. Stopped before any of it
// (as the vacuum began, or before SQLite's VACUUM or Postgres's first
// table committed: each is rolled back), it says nothing was changed: it
// said "interrupted: context canceled". err itself when not interrupted.
func vacuumStopped(ctx context.Context, res *engine.VacuumResult, err error) error {
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	if !errors.Is(err, engine.ErrVacuumIncomplete) {
		return &interruptedError{"stopped before the vacuum committed anything: nothing was changed; run mnemo vacuum again", err}
	}
	if res == nil || res.Backend == "sqlite" {
		return &interruptedError{"mnemo.db was rewritten and the rewrite committed (nothing is lost), but the WAL checkpoint that writes the new file into place was stopped: " +
			"closing the data directory completes it (this command's close, or the next command's), and the space freed shows then; no need to vacuum again", err}
	}
	var done []string
	for _, t := range res.Tables {
		done = append(done, t.Name)
	}
	before, after := tableSums(res.Tables)
	return &interruptedError{fmt.Sprintf("vacuumed %s (%s, %s before, %s after) before it stopped, not the others; run mnemo vacuum again for them",
		count(len(done), "table"), strings.Join(done, ", "), before, after), err}
}

// tableSums says the sizes of tables before and after the vacuum in all:
// a size after that could not be read (-1: Postgres, its query stopped)
// is left out of the sum, which says so ("1.00 MiB + unknown"); it was
// added as -1 byte and a table printed as "-0.00 MiB".
func tableSums(tables []engine.VacuumedTable) (before, after string) {
	var b, a int64
	unknown := false
	for _, t := range tables {
		b += t.BytesBefore
		if t.BytesAfter < 0 {
			unknown = true
		} else {
			a += t.BytesAfter
		}
	}
	after = mibs(a)
	if unknown {
		after += " + unknown"
	}
	return mibs(b), after
}

// sizeAfter is a table's size after the vacuum: "unknown" for -1.
func sizeAfter(b int64) string {
	if b < 0 {
		return "unknown"
	}
	return mibs(b)
}

// explainVacuum says, on standard error, what the vacuum did to erased
// text and what it cannot reach (docs/postgres.md).
func (c *VacuumCommand) explainVacuum(backend string, full bool) {
	switch {
	case backend == "sqlite":
		fmt.Fprintln(c.Stderr, "mnemo vacuum: SQLite file rewritten and its WAL truncated. Erasure needs no vacuum here: SQLite runs with secure_delete (erased rows are zeroed), the erasure of a thread or resource rebuilds the indexes that hold a piece of its id (no index page keeps one), and an erasure zeroes a copy of an erased text that survived in free space (or vacuums the file itself); this only returns free pages to the file system.")
	case full:
		fmt.Fprintln(c.Stderr, "mnemo vacuum: tables rewritten (VACUUM FULL); the old files were unlinked, not wiped. Erased text may remain in the WAL, base backups and replicas until they are recycled.")
	default:
		fmt.Fprintln(c.Stderr, "mnemo vacuum: dead rows removed (VACUUM): their space is free for reuse but not zeroed, so erased text stays in the tables' files until new rows overwrite it; --full rewrites the tables. The WAL, base backups and replicas keep erased text until they are recycled.")
	}
}

// mibs formats a size in MiB with two decimals.
func mibs(b int64) string { return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20)) }
