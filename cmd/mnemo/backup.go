package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

func init() {
	commands["backup"] = command{"copy the data directory, consistent as of one commit, into a new directory DEST, even while it is served (SQLite; Postgres: pg_dump)", func(m *Main) Command { return &BackupCommand{m} }}
}

// BackupCommand is `mnemo backup DEST` (engine.Backup): a copy of the data
// directory's database as of one commit, and its memory configuration
// (mnemo.json), in a new data directory. Unlike every other command it
// runs beside `mnemo serve` and any command holding the directory: it
// waits on no lock (engine.Backup). Like every command it embeds Main: the process
// environment and the global flags.
type BackupCommand struct{ *Main }

// Run parses the flags of `mnemo backup` from args and runs it.
func (c *BackupCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("backup", "DEST")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return c.usagef(fs, "backup needs one DEST, a directory that does not exist yet (or is empty)")
	}
	if c.DB != "" {
		return engine.ErrBackupPostgres
	}
	res, err := engine.Backup(ctx, engine.Config{Dir: c.Dir}, fs.Arg(0), engine.BackupOptions{Files: []string{StoredConfigFile}})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(res)
	}
	also := ""
	if len(res.Files) > 0 {
		also = " and " + strings.Join(res.Files, ", ")
	}
	fmt.Fprintf(c.Stdout, "backed up %s to %s: %s (%s, %s)%s\n", c.Dir, res.Dest, engine.DatabaseFile, count(res.Messages, "message"), mibs(res.DatabaseBytes), also)
	if n := len(res.RemovedStaging); n > 0 {
		what, they := "the staging directory of a backup", "it"
		if n > 1 {
			what, they = fmt.Sprintf("the staging directories of %d backups", n), "they"
		}
		fmt.Fprintf(c.Stderr, "removed %s killed before %s finished, beside %s: %s\n", what, they, res.Dest, strings.Join(res.RemovedStaging, ", "))
	}
	fmt.Fprintf(c.Stderr, "the indexes are not copied: the first command that opens it rebuilds them from its database. The backup keeps what a later erasure removes here: delete old backups by your retention. To rebuild the indexes at once and verify the copy, run: mnemo --dir %s check\n", shellWord(res.Dest))
	return nil
}
