// Command mnemo is the command-line tool of the mnemo memory engine: ingest
// conversations, inspect threads and messages, load contexts with their
// memctx records, and run the demo.
//
// Usage:
//
//	mnemo [--dir DIR | --db URL] COMMAND [flags] [args]
//
// The memory lives in Postgres when --db (else $MNEMO_DB) gives a
// postgres:// URL, otherwise in the data directory from --dir, else
// $MNEMO_DIR, else ./mnemo-data.
// Usage errors print a hint and exit 2; other errors exit 1. SIGINT
// (Ctrl-C) and SIGTERM cancel the command, which stops within 3 s (serve:
// 25 s, its in-flight requests given 20 s) with exit code 130 or 143.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// bleve's scorch writes recovery notes ("unable to load snapshot …") with
	// the standard logger; mnemo reports a corrupt index itself (quarantine
	// events, memctx.retrieval), so the CLI keeps its output to its own words.
	log.SetOutput(io.Discard)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	stderr := m.Stderr
	got := stopOnSignal(cancel, m.Running, func(text string) { m.bar.say(stderr, text) }, m.lastLine)
	code := m.Run(ctx, os.Args[1:])
	os.Exit(m.exitAfter(code, got()))
}

// exitAfter is the process's exit code once the command returned code,
// sig being the signal received meanwhile (nil for none): exitCode(sig)
// (130, 143), unless the command succeeded after its result was complete
// (finished), the signal having cut only its close: then code, 0.
func (m *Main) exitAfter(code int, sig os.Signal) int {
	if sig == nil || (code == 0 && m.complete.Load()) {
		return code
	}
	return exitCode(sig)
}

// finished records that the command's result is complete and printed: a
// SIGINT or SIGTERM after it (while the engine closes) no longer makes
// the exit code 130 or 143 (exitAfter).
func (m *Main) finished() { m.complete.Store(true) }

// Main runs one mnemo command. Its fields are the process environment, so
// tests can run commands in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	// Dir is the data directory chosen by --dir, $MNEMO_DIR or the default;
	// "" when DB is set.
	Dir string
	// dirFlag is set when --dir was given (not $MNEMO_DIR or the
	// default): a command that never uses a data directory (bench) says so.
	dirFlag bool
	// targetImplicit: no --dir or --db chose Dir or DB (target.implicit).
	targetImplicit bool
	// DB is the Postgres URL chosen by --db or $MNEMO_DB; "" means the data
	// directory Dir (chooseTarget decides).
	DB string
	// Embedder names the embedder chosen by --embedder or $MNEMO_EMBEDDER;
	// "" or "auto" means the default (use-lite when installed, else hash-384).
	Embedder string
	// embedderEnv: Embedder came from $MNEMO_EMBEDDER, not --embedder.
	embedderEnv bool

	command string // the running subcommand, for the lock file
	// complete is set (finished) once the command's result is complete and
	// printed.
	complete atomic.Bool
	// sub is the running command with its subcommand ("wm set", "models
	// fetch"; Main.flags sets it), which its errors are said under; ""
	// for a command without one.
	sub   string
	args  []string // the command's arguments, flags included: exitStatus keeps them in its text
	wmSet bool     // the command is wm set, which may create the directory
	// global are the words before the command on the command line (the
	// global flags as given), for the hints that rewrite the line.
	global []string
	// sawFlags, when set, is given each FlagSet the command makes
	// (Main.flags): commandFlagHint reads a command's flags from them.
	sawFlags func(*flag.FlagSet)
	// embedsNone is set by a command that embeds, when its flags ask it to
	// embed nothing of its own (context without a recall flag, reindex
	// without --vectors): its --embedder openai is then built only when
	// the directory needs it (Main.defersOpenAI).
	embedsNone bool
	// warnedServed is set once the command warned of a setting only mnemo
	// serve uses (Main.checkServed): the configuration is read more than
	// once by some (check, salvage).
	warnedServed bool
	// configDamage is the stored configuration that could not be read or
	// applied, for check and salvage, which ran with the defaults
	// (damagedConfig); nil when there was none.
	configDamage *storedConfigError

	switchEmbedder bool // reindex --vectors: the named embedder replaces the directory's

	// migrateUnderLoad is --migrate-under-load: on Postgres, migrate an
	// older schema even while older builds' sessions use it
	// (engine.Config.MigrateUnderLoad).
	migrateUnderLoad bool

	// notes collects the events of the engines the command opened
	// without a log (eventnotes.go); nil until one is opened.
	notes *eventNotes

	// running is the command the signal notices name ("ingest", "wm
	// set"; nil before one is chosen): stored by Run and flags, read by
	// stopOnSignal's goroutine.
	running atomic.Pointer[string]

	// last is what a command says when the process exits before it
	// returned (setLastLine): read by stopOnSignal's goroutine.
	last atomic.Pointer[func() string]

	// bar is the line a progress bar draws on standard error, which the
	// signal notices end before they are said (barline.go).
	bar barLine
}

// setLastLine sets what is said when the process exits before the
// command returned (a second signal, or the grace after the first
// passed): f returns the line, "" for none. A command that commits as it
// goes (ingest) says there what it committed.
func (m *Main) setLastLine(f func() string) { m.last.Store(&f) }

// lastLine is the line setLastLine's function returns, "" when none is set.
func (m *Main) lastLine() string {
	if f := m.last.Load(); f != nil {
		return (*f)()
	}
	return ""
}

// setRunning records the running command (with its subcommand) for the
// signal notices.
func (m *Main) setRunning(name string) { m.running.Store(&name) }

// Running is the command the signal notices name, "" before Run has
// chosen one.
func (m *Main) Running() string {
	if p := m.running.Load(); p != nil {
		return *p
	}
	return ""
}

// Command is one subcommand, in the style of litestream's commands: a
// struct per subcommand (XCommand, embedding Main for the process
// environment and the global flags) whose Run parses args with its own
// flag.FlagSet (Main.flags, whose Usage prints the command's flags) and runs
// it. Run returns flag.ErrHelp after printing the help asked for, errUsage
// after a usage hint, or the command's error; Main.Run maps them to the
// exit code.
type Command interface {
	Run(ctx context.Context, args []string) error
}

// command is one entry of the dispatch table.
type command struct {
	summary string              // the line of `mnemo help`
	new     func(*Main) Command // the subcommand bound to the process
}

// commands is the dispatch table: one entry per subcommand, each in its own file.
var commands = map[string]command{
	"ingest":   {"import conversations (jsonl, locomo, longmemeval)", func(m *Main) Command { return &IngestCommand{Main: m} }},
	"threads":  {"list threads (metadata only)", func(m *Main) Command { return &ThreadsCommand{m} }},
	"messages": {"print a thread's messages", func(m *Main) Command { return &MessagesCommand{m} }},
	"context":  {"load the memory part of a prompt and write its memctx record", func(m *Main) Command { return &ContextCommand{m} }},
	"memctx":   {"print a run's memctx record", func(m *Main) Command { return &MemCtxCommand{m} }},
	"runs":     {"list runs with a memctx record", func(m *Main) Command { return &RunsCommand{m} }},
	"replay":   {"rebuild a run's prompt, optionally without recall, observations, working memory or chosen turns", func(m *Main) Command { return &ReplayCommand{m} }},
	"delete":   {"erase messages, a thread or a resource, and everything derived from them", func(m *Main) Command { return &DeleteCommand{m} }},
	"expire":   {"erase threads idle for their lifetime now (--idle D, --resource R, --dry-run)", func(m *Main) Command { return &ExpireCommand{m} }},
	"demo":     {"run the main job on a shipped sample conversation (no network)", func(m *Main) Command { return &DemoCommand{m} }},
	"wm":       {"working memory: get, history, set (--thread T | --resource R)", func(m *Main) Command { return &WMCommand{m} }},
	"models":   {"fetch and list local models (use-lite embedder weights)", func(m *Main) Command { return &ModelsCommand{m} }},
	"mcp":      {"serve MCP over stdin/stdout (tools memory_append, memory_search, memory_context, working_memory_*, memory_delete)", func(m *Main) Command { return &MCPCommand{m} }},
	"version":  {"print mnemo's version, Go version and platform", func(m *Main) Command { return &VersionCommand{m} }},
	"serve":    {"serve the HTTP API (/v1), MCP (/mcp), the inspector (/ui/), /metrics and /openapi.json over the data directory", func(m *Main) Command { return &ServeCommand{m} }},
	"bench":    {"measure ingest, LoadContext, search, open time, RSS and disk on a synthetic corpus or a file", func(m *Main) Command { return &BenchCommand{m} }},

	// observational memory (observe.go)
	"observe":      {"run the observer and reflector on a thread now (needs MNEMO_MODEL)", func(m *Main) Command { return &ObserveCommand{m} }},
	"observations": {"list a thread's or resource's observations with their ranges", func(m *Main) Command { return &ObservationsCommand{m} }},
}

// errUsage marks a usage error: the command printed a hint, exit 2.
var errUsage = errors.New("usage")

// Run parses the global flags, dispatches and returns the exit code, in
// stages: the global flags parsed (parseGlobal) and applied to m
// (setGlobal), then the command named run (runCommand).
func (m *Main) Run(ctx context.Context, args []string) int {
	g := newGlobalArgs()
	if code, done := m.parseGlobal(ctx, g, args); done {
		return code
	}
	if code := m.setGlobal(g); code != 0 {
		return code
	}
	return m.runCommand(ctx, g, args)
}

// globalArgs are the values of mnemo's global flags (globalFlags), on their FlagSet.
type globalArgs struct {
	fs                *flag.FlagSet
	dir, db, embedder string
	version           bool // --version: mnemo version
	migrateUnderLoad  bool
}

// newGlobalArgs defines the global flags on a FlagSet of their own, which
// prints nothing: parseGlobal says a refused flag itself.
func newGlobalArgs() *globalArgs {
	g := &globalArgs{fs: flag.NewFlagSet("mnemo", flag.ContinueOnError)}
	fs := g.fs
	fs.StringVar(&g.dir, "dir", "", "data directory (default $MNEMO_DIR or "+engine.DefaultDir+")")
	fs.StringVar(&g.db, "db", "", "Postgres URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE, instead of a data directory (default $MNEMO_DB)")
	fs.StringVar(&g.embedder, "embedder", "", "embedder: auto, hash-384, use-lite or openai (default $MNEMO_EMBEDDER, else auto: use-lite when installed, else hash-384)")
	fs.BoolVar(&g.version, "version", false, "print the version and exit")
	fs.BoolVar(&g.migrateUnderLoad, "migrate-under-load", false, "Postgres: migrate an older schema even while processes of older mnemo builds use it (then run mnemo reindex once they are stopped)")
	// The flag package's own error line ("flag needs an argument: -dir")
	// is said again below as every usage error is: "mnemo: " and the flag
	// spelled --dir.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return g
}

// parseGlobal parses the global flags from args into g. done reports that
// the command line ends there, code its exit code: 0 after -h (the help
// printed), 2 after a flag refused (said on standard error, with the
// usage line), --dir or --db given empty, or --embedder given empty.
func (m *Main) parseGlobal(ctx context.Context, g *globalArgs, args []string) (code int, done bool) {
	if err := g.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			m.usageTo(m.Stdout)
			return 0, true
		}
		// The usage line and where the rest is: the whole help (some 40
		// lines) buried the error line above it.
		hint := commandFlagHint(ctx, args, err)
		near := ""
		if hint == "" {
			near = flagNear(g.fs, err) // mnemo --dri ./x threads
		}
		fmt.Fprintf(m.Stderr, "mnemo: %s%s\n", flagName.ReplaceAllString(err.Error(), "$1--$2"), near)
		if hint != "" {
			// A command's flag before the command (mnemo --resource alice
			// threads): where it goes.
			fmt.Fprintln(m.Stderr, hint)
		}
		fmt.Fprintf(m.Stderr, "%s\nRun 'mnemo help' for the global flags and the commands.\n", usageLine)
		return 2, true
	}
	if err := emptyTargetFlag(g.fs); err != nil {
		fmt.Fprintf(m.Stderr, "mnemo: %v\n", err)
		return 2, true
	}
	if flagGiven(g.fs, "embedder") && g.embedder == "" {
		fmt.Fprintf(m.Stderr, "mnemo: --embedder is empty: give auto, %s, or leave the flag out (then $MNEMO_EMBEDDER, else auto)\n", embedderNames)
		return 2, true
	}
	return 0, false
}

// setGlobal sets m's target (chooseTarget: --dir, --db, $MNEMO_DIR,
// $MNEMO_DB) and embedder (--embedder, else $MNEMO_EMBEDDER) from g, and
// returns 0, or 2 after saying why it cannot: two targets, or an embedder
// mnemo does not know.
func (m *Main) setGlobal(g *globalArgs) int {
	t, err := chooseTarget(g.dir, g.db, m.Getenv)
	if err != nil {
		fmt.Fprintf(m.Stderr, "mnemo: %v\n", err)
		return 2
	}
	m.Dir, m.DB, m.Embedder = t.dir, t.dsn, g.embedder
	m.dirFlag = g.dir != ""
	m.targetImplicit = t.implicit
	m.migrateUnderLoad = g.migrateUnderLoad
	if m.Embedder == "" {
		m.Embedder = m.Getenv("MNEMO_EMBEDDER")
		m.embedderEnv = m.Embedder != ""
	}
	if !knownEmbedder(m.Embedder, true) {
		fmt.Fprintf(m.Stderr, "mnemo: unknown embedder %q (from --embedder or $MNEMO_EMBEDDER; want auto, %s)\n", m.Embedder, embedderNames)
		return 2
	}
	return 0
}

// runCommand runs the command named after the global flags of args (g,
// parsed), mnemo help's list or a command's flags, and returns the exit
// code (exitStatus); 2 after saying that no command, or an unknown one,
// is named.
func (m *Main) runCommand(ctx context.Context, g *globalArgs, args []string) int {
	fs := g.fs
	global := args[:len(args)-fs.NArg()] // the words before the command
	if g.version {
		// mnemo --version is mnemo version, with the words after it as
		// its arguments: "mnemo --version extra" is refused as "mnemo
		// version extra" is (it printed the version, extra ignored).
		rest := fs.Args()
		fs = flag.NewFlagSet("mnemo", flag.ContinueOnError)
		fs.Parse(append([]string{"version", "--"}, rest...))
	}
	if fs.NArg() == 0 {
		m.usageTo(m.Stderr)
		return 2
	}
	name := fs.Arg(0)
	if name == "help" {
		return m.help(ctx, fs, args)
	}
	cmd, ok := commands[name]
	if !ok {
		// The usage line and where the rest is, as after a refused global
		// flag: the command list (some 40 lines) buried the error line and
		// its did-you-mean.
		fmt.Fprintf(m.Stderr, "mnemo: %s\n%s\nRun 'mnemo help' for the commands.\n", unknownCommand(name, global, fs.Args()[1:]), usageLine)
		return 2
	}
	m.command = name
	m.setRunning(name)
	// The command's standard output and standard error escape control
	// characters (termsafe.go): an error line quotes stored text, a
	// file's records and names too.
	out, errOut := m.Stdout, m.Stderr
	m.Stdout, m.Stderr = termSafe{out}, termSafe{errOut}
	defer func() { m.Stdout, m.Stderr = out, errOut }()
	m.args = fs.Args()[1:]
	m.global = global
	err := cmd.new(m).Run(ctx, m.args)
	m.notes.say(m.Stderr, name) // the threads its engine evicted or expired
	return m.exitStatus(ctx, name, err)
}

// help is mnemo help (fs's arguments, after the global flags of args):
// the command list; mnemo help COMMAND [SUBCOMMAND]: its flags, as
// COMMAND [SUBCOMMAND] -h prints them.
func (m *Main) help(ctx context.Context, fs *flag.FlagSet, args []string) int {
	if fs.NArg() == 1 {
		m.usageTo(m.Stdout)
		return 0
	}
	if _, ok := commands[fs.Arg(1)]; !ok {
		fmt.Fprintf(m.Stderr, "mnemo: %s\n%s\nRun 'mnemo help' for the commands.\n", unknownCommand(fs.Arg(1), nil, nil), usageLine)
		return 2
	}
	return m.Run(ctx, append(append(append([]string{}, args[:len(args)-fs.NArg()]...), fs.Args()[1:]...), "-h"))
}

// exitStatus reports the error of command name (or of its subcommand,
// Main.sub) and returns the exit code: 0
// on success or after help, 2 for a usage error (the command printed its
// hint; a flag value the engine or recall refused gets one here), 1
// otherwise. The error is said once (scrubbed), then the first of
// usageStatus, whereAdvice, damageAdvice and failureAdvice that knows it
// says what to do.
func (m *Main) exitStatus(ctx context.Context, name string, err error) int {
	if m.sub != "" {
		name = m.sub // "mnemo wm set: read schema: …", not "mnemo wm: …"
	}
	if err == nil {
		return 0
	}
	err = m.scrubbed(name, err)
	if code, ok := m.usageStatus(name, err); ok {
		return code
	}
	if !m.whereAdvice(name, err) && !m.damageAdvice(name, err) {
		m.failureAdvice(ctx, name, err)
	}
	return 1
}

// scrubbed is err of command name as said once, for a person: without
// the Go package names the library's errors begin with, nor the command's
// name again ("engine: salvage: …" read "mnemo salvage: salvage: …"), and
// never the DSN's password; the chain stays for errors.Is.
func (m *Main) scrubbed(name string, err error) error {
	text := withoutPackagesBut(scrubDSN(err.Error(), m.DB), m.args)
	return &scrubbedError{err, strings.TrimPrefix(text, name+": ")}
}

// usageStatus says err of command name and returns its exit code when it
// is not 1 (ok): 0 after help, 2 for a usage error (printed by the
// command, or a flag's value the engine or recall refused, said here with
// the hint to the command's flags), exitSkipped for records skipped.
func (m *Main) usageStatus(name string, err error) (code int, ok bool) {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case errors.Is(err, errUsage):
		return 2, true
	case errors.As(err, new(*skippedError)):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		return exitSkipped, true
	case errors.As(err, new(*targetError)), errors.Is(err, errNoAPIKey):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		return 2, true
	case errors.Is(err, errBadEndpoint):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		// A stored mnemo.json's refusal has its What to do, this first.
		if ee := (*endpointError)(nil); errors.As(err, &ee) && !errors.As(err, new(*storedConfigError)) {
			fmt.Fprintf(m.Stderr, "What to do: %s.\n", ee.Advice)
		}
		return 2, true
	case errors.Is(err, engine.ErrQueryTooLong):
		// The query, not a flag: no hint to read the flags.
		fmt.Fprintf(m.Stderr, "mnemo %s: %s\n", name, strings.Replace(err.Error(), "engine: ", "", 1))
		return 2, true
	case errors.Is(err, engine.ErrInvalidInput), errors.Is(err, recall.ErrInvalidOptions), errors.Is(err, recall.ErrInvalidFilter):
		// A flag's value broke a rule: a usage error.
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n%s\n", name, err, commandHelpHint(name))
		return 2, true
	}
	return 0, false
}

// whereAdvice says err of command name with what to do, and reports
// whether it did, when the data is not where the command looked: a
// database file gone, a file of no mnemo schema, a --dir or --db that
// names no memory.
func (m *Main) whereAdvice(name string, err error) bool {
	var gone *engine.GoneDatabaseError
	switch {
	case errors.As(err, &gone):
		// Not the hint below: a write would create a new, empty database.
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n%s\n", name, err, goneAdvice(gone))
	case errors.Is(err, engine.ErrNoSchema):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nWhat to do: check --dir (or $MNEMO_DIR): if %s is another program's database, point --dir at mnemo's data directory; if it was mnemo's, stop every process using %s and restore %s from a backup (%s). No command writes mnemo's schema into it.\n",
			name, err, engine.DatabaseFile, m.Dir, engine.DatabaseFile, backupsDoc)
	case errors.Is(err, engine.ErrNotDataDir) && m.DB != "":
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nCheck --db (or $MNEMO_DB): its database and search_path; mnemo's tables are created by writing to it (mnemo ingest, mnemo wm set, mnemo serve, mnemo mcp).\n", name, err)
	case errors.Is(err, engine.ErrNotDataDir) && m.creates():
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nCheck --dir (or $MNEMO_DIR): it must name a directory, or a path where one can be created.\n", name, err)
	case errors.Is(err, engine.ErrNotDataDir):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nCheck --dir (or $MNEMO_DIR); a data directory is created by writing to it (mnemo ingest, mnemo wm set, mnemo serve, mnemo mcp).\n", name, err)
	default:
		return false
	}
	return true
}

// damageAdvice says err of command name with what to do, and reports
// whether it did, when a file of the database is not what SQLite wrote: a
// write-ahead log or its index that is not a file, a mnemo.db that is
// none, cut to nothing or damaged, a salvage interrupted.
func (m *Main) damageAdvice(name string, err error) bool {
	switch {
	case errors.Is(err, engine.ErrWALNotFile):
		file, what := engine.DatabaseFile+"-wal", "write-ahead log"
		if we := new(store.WALNotFileError); errors.As(err, &we) && we.Index {
			file, what = engine.DatabaseFile+"-shm", "write-ahead log's index"
		}
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nWhat to do: %s is not at fault: its %s %s is not a file SQLite wrote. Stop every process using %s, move %s aside (out of %s; nothing is read or written through it), then run the command again.\n",
			name, err, engine.DatabaseFile, what, file, m.Dir, file, m.Dir)
	case errors.Is(err, engine.ErrDatabaseNotFile):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nWhat to do: it holds no database, and mnemo salvage cannot read it: stop every process using %s, move it away, restore %s from a backup (%s; and delete %s-wal and %s-shm beside it), then rebuild the indexes from it: %s\n",
			name, err, m.Dir, engine.DatabaseFile, backupsDoc, engine.DatabaseFile, engine.DatabaseFile, m.target().mnemo("reindex"))
	case errors.Is(err, engine.ErrSalvageInterrupted):
		// The engine's error names the directory but no command: the
		// command names the memory as the user's own did (target.mnemo).
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nWhat to do: to finish the salvage, run: %s\n", name, err, m.target().mnemo("salvage"))
	case errors.Is(err, engine.ErrDatabaseEmpty):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		printEmptyAdvice(m.Stderr, m.target())
	case (errors.Is(err, engine.ErrDatabaseCorrupt) || store.IsCorrupt(err)) && !errors.As(err, new(*engine.CheckError)):
		// The open could not read mnemo.db at all, or a later query met
		// a damaged page the open did not read (check's own findings
		// were printed with this advice by check).
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		printCorruptAdvice(m.Stderr, m.target(), name != "salvage")
	default:
		return false
	}
	return true
}

// failureAdvice says any other err of command name: with how to get the
// data out of a full disk, with what holds a locked database, as
// interrupted when ctx was cancelled, else as it is.
func (m *Main) failureAdvice(ctx context.Context, name string, err error) {
	switch {
	case errors.Is(err, engine.ErrNoSpace) && m.DB == "" && name != "backup" && name != "salvage":
		// How to get the data out while the disk stays full (readme51):
		// a backup writes only at its destination.
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n%s\n", name, err, noSpaceAdvice(m.target()))
	case errors.Is(err, engine.ErrDatabaseLocked):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n%s\n", name, err, lockedAdvice(m.Dir))
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintf(m.Stderr, "mnemo %s: interrupted: %v\n", name, err)
	default:
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
	}
}

// noSpaceAdvice is said after a command's no-space error
// (engine.ErrNoSpace): the way to get the data of t out now, while its
// disk is full.
func noSpaceAdvice(t target) string {
	return fmt.Sprintf("To get the data out now, copy it to DEST, a new directory on another disk (a backup writes only there; %s): %s", backupsDoc, t.mnemo("backup", "DEST"))
}

// usageLine is mnemo's usage in one line: the first of its help, and said
// after a global flag it refused.
const usageLine = "usage: mnemo [--dir DIR | --db URL] [--embedder NAME] COMMAND [flags] [args]"

// usageTo writes the command list to w: standard output when help was
// asked for, standard error after a usage error.
func (m *Main) usageTo(w io.Writer) {
	fmt.Fprintf(w, "%s\n\ncommands:\n", usageLine)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nglobal flags:\n  --dir DIR        data directory (default $MNEMO_DIR, else %s)\n  --db URL         Postgres instead of a data directory: postgres://USER:PASSWORD@HOST:PORT/DATABASE (default $MNEMO_DB)\n  --embedder NAME  auto, hash-384, use-lite or openai (default $MNEMO_EMBEDDER, else auto)\n  --migrate-under-load  Postgres: migrate an older schema although older mnemo builds use it (docs/postgres.md, Upgrading)\n  --version        print the version\n", engine.DefaultDir)
	fmt.Fprintf(w, "\nRun 'mnemo help COMMAND' (or 'mnemo COMMAND -h') for a command's flags.\n")
	fmt.Fprintf(w, "\n--json: the answer is JSON on standard output; errors, warnings and progress are text on\nstandard error. Exit status: 0 done, 1 failed, 2 usage error (refused: nothing stored\nor erased), 3 ingest stored but skipped records, 130/143 stopped by SIGINT/SIGTERM (docs/cli.md, \"--json and exit codes\").\n")
}
