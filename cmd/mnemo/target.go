package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore"
)

// target is where a command's memory lives: a data directory (the embedded
// SQLite backend) or a Postgres database. Exactly one of dir and dsn is set.
type target struct {
	dir string // the data directory; "" on Postgres
	dsn string // a postgres:// or postgresql:// URL; "" for a directory
	// implicit is set when the default chose it (engine.DefaultDir: no
	// --dir, --db, $MNEMO_DIR or $MNEMO_DB), so a command to run (mnemo)
	// names no --dir either, as the user's own did not. A variable's
	// choice is named as a flag: it may have been set for the one command
	// (MNEMO_DB=… mnemo delete), where a bare suggestion, pasted, ran on
	// ./mnemo-data (readme54).
	implicit bool
}

// targetError is a --db, $MNEMO_DB or --dir choice that cannot be
// honoured: a usage error (exit 2) whose message names the flag or
// variable and never the DSN's password.
type targetError struct{ msg string }

func (e *targetError) Error() string { return e.msg }

// targetErrorf returns a *targetError.
func targetErrorf(format string, args ...any) error {
	return &targetError{fmt.Sprintf(format, args...)}
}

// emptyTargetFlag returns a *targetError when the global flags fs parsed
// give --dir or --db as "" (a script's unset "$D"): read as left out, they
// put the memory in $MNEMO_DIR or ./mnemo-data, where a write or an erasure
// landed unasked. nil otherwise.
func emptyTargetFlag(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil || f.Value.String() != "":
		case f.Name == "dir":
			err = targetErrorf("--dir is empty: give a directory or leave the flag out (then $MNEMO_DIR, else %s)", engine.DefaultDir)
		case f.Name == "db":
			err = targetErrorf("--db is empty: give a postgres:// URL or leave the flag out (then $MNEMO_DB, else a data directory); a command mnemo printed with %s needs MNEMO_DB set to the database's URL (mnemo prints no password)", dbFromEnv)
		}
	})
	return err
}

// chooseTarget decides, in one place, where every command's memory lives:
// --db (dbFlag), else $MNEMO_DB, else the data directory (--dir, else
// $MNEMO_DIR, else engine.DefaultDir). dirFlag is --dir as given ("" when
// absent). --db must be a postgres:// or postgresql:// URL; --db with
// --dir, and $MNEMO_DB with --dir, are refused rather than one silently
// overriding the other (unset MNEMO_DB to use a directory). Errors are
// *targetError.
func chooseTarget(dirFlag, dbFlag string, getenv func(string) string) (target, error) {
	dsn, from := dbFlag, "--db"
	if dsn == "" {
		dsn, from = getenv("MNEMO_DB"), "$MNEMO_DB"
	}
	if dsn == "" {
		dir := dirFlag
		if dir == "" {
			dir = getenv("MNEMO_DIR")
		}
		if dir == "" {
			return target{dir: engine.DefaultDir, implicit: true}, nil
		}
		return target{dir: dir}, nil
	}
	if dirFlag != "" {
		if from == "--db" {
			return target{}, targetErrorf("--db and --dir both choose where the memory lives; give one")
		}
		return target{}, targetErrorf("--dir and $MNEMO_DB both choose where the memory lives; give one (unset MNEMO_DB to use a data directory)")
	}
	if err := checkDSN(dsn); err != nil {
		return target{}, targetErrorf("%s: %v", from, err)
	}
	return target{dsn: dsn}, nil
}

// checkDSN checks that dsn is a Postgres URL that the store can open:
// pgx's parameters and mnemo's own (pgstore.ParseDSN). Its messages never
// repeat the password.
func checkDSN(dsn string) error {
	scheme, _, ok := strings.Cut(dsn, "://")
	if !ok || (!strings.EqualFold(scheme, "postgres") && !strings.EqualFold(scheme, "postgresql")) {
		return fmt.Errorf("want a Postgres URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE (a data directory is chosen with --dir)")
	}
	if _, err := url.Parse(dsn); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, password and all
		}
		return fmt.Errorf("not a valid URL: %v", err)
	}
	if err := pgstore.ParseDSN(dsn); err != nil {
		// pgx's parameters, pgxpool's and tcp_user_timeout, refused here
		// as the open refuses them: only pgconn's were, and a malformed
		// tcp_user_timeout or pool_max_conns failed the open with exit 1.
		return fmt.Errorf("not a valid Postgres URL: %s", withoutPackages(scrubDSN(err.Error(), dsn)))
	}
	return nil
}

// redactDSN returns dsn with its password, in the user part or in a
// password parameter, replaced by xxxxx: the form every message prints.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unreadable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// dsnPassword returns dsn's password ("" when it has none).
func dsnPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	if p, ok := u.User.Password(); ok {
		return p
	}
	return u.Query().Get("password")
}

// scrubDSN removes dsn and its password from s (a message about to be
// printed), in case a library repeated them: the DSN becomes its redacted
// form and the password xxxxx.
func scrubDSN(s, dsn string) string {
	if dsn == "" {
		return s
	}
	s = strings.ReplaceAll(s, dsn, redactDSN(dsn))
	if p := dsnPassword(dsn); p != "" {
		s = strings.ReplaceAll(s, p, "xxxxx")
		if esc := url.QueryEscape(p); esc != p {
			s = strings.ReplaceAll(s, esc, "xxxxx")
		}
		if esc := url.PathEscape(p); esc != p {
			s = strings.ReplaceAll(s, esc, "xxxxx")
		}
	}
	return s
}

// String names the target for messages: the data directory, or the
// redacted DSN.
func (t target) String() string {
	if t.dsn != "" {
		return redactDSN(t.dsn)
	}
	return t.dir
}

// flag is the global flag that names t in a command to run: --dir DIR
// (quoted for a shell when needed), --db with the DSN when it has no
// password, else --db "$MNEMO_DB": no message prints a password, and the
// redacted DSN it printed (xxxxx for the password) failed when pasted
// (readme61 LOW 3). Pasted where MNEMO_DB holds the URL (the usual way to
// give one with a password) it runs as printed; where it is unset, the
// empty --db is refused saying to set it (emptyTargetFlag).
func (t target) flag() string {
	if t.dsn != "" && dsnPassword(t.dsn) != "" {
		return dbFromEnv
	}
	if t.dsn != "" {
		return "--db " + shellWord(t.dsn)
	}
	return "--dir " + shellWord(t.dir)
}

// dbFromEnv is the --db flag of a printed command whose DSN has a
// password (target.flag).
const dbFromEnv = `--db "$MNEMO_DB"`

// mnemo is the command to run on t, to be pasted as printed: "mnemo",
// the flag naming t (flag: --dir D or --db URL, also when $MNEMO_DIR or
// $MNEMO_DB chose it; none when the default ./mnemo-data did, as the
// user's own command named none), then words, each quoted for a shell
// when needed: t.mnemo("reindex", "--vectors") is "mnemo --dir D reindex
// --vectors" after mnemo --dir D check, "mnemo reindex --vectors" after
// mnemo check.
func (t target) mnemo(words ...string) string {
	line := "mnemo"
	if !t.implicit {
		line += " " + t.flag()
	}
	for _, w := range words {
		line += " " + shellWord(w)
	}
	return line
}

// threadsCmd is the command that lists the threads stored in t, of
// resource when it is not "" (mnemo): "mnemo --dir D threads [--resource
// R]".
func (t target) threadsCmd(resource string) string {
	if resource != "" {
		return t.mnemo("threads", "--resource", resource)
	}
	return t.mnemo("threads")
}

// backend names t's backend: "postgres" or "sqlite".
func (t target) backend() string {
	if t.dsn != "" {
		return "postgres"
	}
	return "sqlite"
}

// apply sets cfg's store: Dir, or the Postgres DSN (engine.Config.Postgres).
func (t target) apply(cfg *engine.Config) error {
	cfg.Dir, cfg.Postgres = t.dir, t.dsn
	return nil
}

// scrubbedError is err with its message scrubbed of the DSN's password
// (scrubDSN); errors.Is and errors.As see err.
type scrubbedError struct {
	err error
	msg string
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
