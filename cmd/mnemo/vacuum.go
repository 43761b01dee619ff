package main

import (
	"context"
	"fmt"
	"text/tabwriter"
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
		return err
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
	var before, after int64
	for _, t := range res.Tables {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.Name, mibs(t.BytesBefore), mibs(t.BytesAfter))
		before, after = before+t.BytesBefore, after+t.BytesAfter
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t\n", mibs(before), mibs(after))
	if err := tw.Flush(); err != nil {
		return err
	}
	c.explainVacuum(res.Backend, *full)
	c.finished()
	return nil
}

// explainVacuum says, on standard error, what the vacuum did to erased
// text and what it cannot reach (docs/postgres.md).
func (c *VacuumCommand) explainVacuum(backend string, full bool) {
	switch {
	case backend == "sqlite":
		fmt.Fprintln(c.Stderr, "mnemo vacuum: SQLite file rewritten and its WAL truncated. Erasure needs no vacuum here: SQLite runs with secure_delete (erased rows are zeroed), the erasure of a thread or resource rebuilds the indexes that hold a piece of its id (no index page keeps one), and an erasure vacuums the file itself when a copy of an erased text survived; this only returns free pages to the file system.")
	case full:
		fmt.Fprintln(c.Stderr, "mnemo vacuum: tables rewritten (VACUUM FULL); the old files were unlinked, not wiped. Erased text may remain in the WAL, base backups and replicas until they are recycled.")
	default:
		fmt.Fprintln(c.Stderr, "mnemo vacuum: dead rows removed (VACUUM): their space is free for reuse but not zeroed, so erased text stays in the tables' files until new rows overwrite it; --full rewrites the tables. The WAL, base backups and replicas keep erased text until they are recycled.")
	}
}

// mibs formats a size in MiB with two decimals.
func mibs(b int64) string { return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20)) }
