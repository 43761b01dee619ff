// Command mnemo is the command-line tool of the mnemo memory engine: ingest
// conversations, inspect threads and messages, load contexts with their
// memctx records, and run the demo.
//
// Usage:
//
//	mnemo [--dir DIR] COMMAND [flags] [args]
//
// The data directory comes from --dir, else $MNEMO_DIR, else ./mnemo-data.
// Usage errors print a hint and exit 2; other errors exit 1. SIGINT
// (Ctrl-C) and SIGTERM cancel the command, which stops within a few seconds
// with exit code 130 or 143.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := stopOnSignal(cancel)
	// bleve's scorch writes recovery notes ("unable to load snapshot …") with
	// the standard logger; mnemo reports a corrupt index itself (quarantine
	// events, memctx.retrieval), so the CLI keeps its output to its own words.
	log.SetOutput(io.Discard)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	code := m.Run(ctx, os.Args[1:])
	if sig := got(); sig != nil {
		code = exitCode(sig)
	}
	os.Exit(code)
}

// stopGrace is how long the CLI waits, after SIGINT or SIGTERM, for the
// command to stop on its cancelled context before it exits anyway. Exiting
// is safe at any point: everything acknowledged is in SQLite, and Open
// completes what was cut short (an erasure's purge, the index outbox).
const stopGrace = 3 * time.Second

// stopOnSignal cancels the command's context on the first SIGINT or
// SIGTERM and exits with exitCode when the command has not returned within
// stopGrace, or at once on a second signal. It returns a function that
// reports the signal received, if any.
func stopOnSignal(cancel context.CancelFunc) func() os.Signal {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	go func() {
		sig := <-sigs
		got.Store(sig)
		fmt.Fprintf(os.Stderr, "mnemo: %v: stopping (send it again to stop at once)\n", sig)
		cancel()
		select {
		case <-sigs:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "mnemo: still busy %s after %v; exiting (the next open completes the work)\n", stopGrace, sig)
		}
		os.Exit(exitCode(sig))
	}()
	return func() os.Signal {
		sig, _ := got.Load().(os.Signal)
		return sig
	}
}

// exitCode is the shell's code for a process ended by sig: 128 + its number
// (130 for SIGINT, 143 for SIGTERM).
func exitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// Main runs one mnemo command. Its fields are the process environment, so
// tests can run commands in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	// Dir is the data directory chosen by --dir, $MNEMO_DIR or the default.
	Dir string
	// Embedder names the embedder chosen by --embedder or $MNEMO_EMBEDDER;
	// "" or "auto" means the default (use-lite when installed, else hash-384).
	Embedder string

	command string // the running subcommand, for the lock file
	wmSet   bool   // the command is wm set, which may create the directory

	switchEmbedder bool // reindex --vectors: the named embedder replaces the directory's
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
	"ingest":   {"import conversations (jsonl, locomo, longmemeval)", func(m *Main) Command { return &IngestCommand{m} }},
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
	"serve":    {"serve the HTTP API (/v1), /metrics and /openapi.json over the data directory", func(m *Main) Command { return &ServeCommand{m} }},
	"bench":    {"measure ingest, LoadContext, search, open time, RSS and disk on a synthetic corpus or a file", func(m *Main) Command { return &BenchCommand{m} }},

	// observational memory (observe.go)
	"observe":      {"run the observer and reflector on a thread now (needs MNEMO_MODEL)", func(m *Main) Command { return &ObserveCommand{m} }},
	"observations": {"list a thread's or resource's observations with their ranges", func(m *Main) Command { return &ObservationsCommand{m} }},
}

// errUsage marks a usage error: the command printed a hint, exit 2.
var errUsage = errors.New("usage")

// Run parses global flags, dispatches and returns the exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("mnemo", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	dir := fs.String("dir", "", "data directory (default $MNEMO_DIR or "+engine.DefaultDir+")")
	emb := fs.String("embedder", "", "embedder: auto, hash-384, use-lite or openai (default $MNEMO_EMBEDDER, else auto: use-lite when installed, else hash-384)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { m.usageTo(m.Stderr) }
	if helpAsked(args) {
		fs.Usage = func() { m.usageTo(m.Stdout) }
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	m.Dir, m.Embedder = *dir, *emb
	if m.Embedder == "" {
		m.Embedder = m.Getenv("MNEMO_EMBEDDER")
	}
	if m.Dir == "" {
		m.Dir = m.Getenv("MNEMO_DIR")
	}
	if m.Dir == "" {
		m.Dir = engine.DefaultDir
	}
	if !knownEmbedder(m.Embedder, true) {
		fmt.Fprintf(m.Stderr, "mnemo: unknown embedder %q (from --embedder or $MNEMO_EMBEDDER; want auto, %s)\n", m.Embedder, embedderNames)
		return 2
	}
	if *showVersion {
		fs = flag.NewFlagSet("mnemo", flag.ContinueOnError)
		fs.Parse([]string{"version"})
	}
	if fs.NArg() == 0 {
		m.usageTo(m.Stderr)
		return 2
	}
	name := fs.Arg(0)
	if name == "help" {
		// mnemo help: the command list; mnemo help COMMAND: its flags.
		if fs.NArg() == 1 {
			m.usageTo(m.Stdout)
			return 0
		}
		if _, ok := commands[fs.Arg(1)]; !ok {
			fmt.Fprintf(m.Stderr, "mnemo: unknown command %q\n", fs.Arg(1))
			m.usageTo(m.Stderr)
			return 2
		}
		return m.Run(ctx, append(append([]string{}, args[:len(args)-fs.NArg()]...), fs.Arg(1), "-h"))
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(m.Stderr, "mnemo: unknown command %q\n", name)
		m.usageTo(m.Stderr)
		return 2
	}
	m.command = name
	return m.exitStatus(ctx, name, cmd.new(m).Run(ctx, fs.Args()[1:]))
}

// exitStatus reports the error of command name and returns the exit code: 0
// on success or after help, 2 for a usage error (the command printed its
// hint; a flag value the engine or recall refused gets one here), 1
// otherwise.
func (m *Main) exitStatus(ctx context.Context, name string, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, engine.ErrInvalidInput), errors.Is(err, recall.ErrInvalidOptions), errors.Is(err, recall.ErrInvalidFilter):
		// A flag's value broke a rule: a usage error.
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nRun 'mnemo %s -h' for the flags.\n", name, err, name)
		return 2
	case errors.Is(err, engine.ErrNotDataDir):
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\nCheck --dir (or $MNEMO_DIR); a data directory is created by writing to it (mnemo ingest, mnemo wm set, mnemo serve).\n", name, err)
		return 1
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintf(m.Stderr, "mnemo %s: interrupted: %v\n", name, err)
		return 1
	default:
		fmt.Fprintf(m.Stderr, "mnemo %s: %v\n", name, err)
		return 1
	}
}

// usageTo writes the command list to w: standard output when help was
// asked for, standard error after a usage error.
func (m *Main) usageTo(w io.Writer) {
	fmt.Fprintf(w, "usage: mnemo [--dir DIR] [--embedder NAME] COMMAND [flags] [args]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nglobal flags:\n  --dir DIR        data directory (default $MNEMO_DIR, else %s)\n  --embedder NAME  auto, hash-384, use-lite or openai (default $MNEMO_EMBEDDER, else auto)\n  --version        print the version\n", engine.DefaultDir)
	fmt.Fprintf(w, "\nRun 'mnemo help COMMAND' (or 'mnemo COMMAND -h') for a command's flags.\n")
}

// helpAsked reports whether args ask for help before any "--".
func helpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// flags returns a FlagSet for a subcommand. Its usage goes to standard
// output when it answers -h, to standard error after a usage error (the
// flag package and usagef write the error first).
func (m *Main) flags(name, argsHelp string) *flag.FlagSet {
	fs := flag.NewFlagSet("mnemo "+name, flag.ContinueOnError)
	out := &usageWriter{err: m.Stderr}
	fs.SetOutput(out)
	fs.Usage = func() {
		w := m.Stdout
		if out.wrote {
			w = m.Stderr
		}
		fmt.Fprintf(w, "usage: mnemo [--dir DIR] %s [flags] %s\n", name, argsHelp)
		printFlags(w, fs)
	}
	return fs
}

// usageWriter is a FlagSet's output: error messages go to standard error,
// and once one was written, the usage that follows goes there too.
type usageWriter struct {
	err   io.Writer
	wrote bool
}

func (u *usageWriter) Write(p []byte) (int, error) {
	u.wrote = true
	return u.err.Write(p)
}

// printFlags lists a FlagSet's flags as the README spells them:
// "--name VALUE" with the usage and default on the next line.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	any := false
	fs.VisitAll(func(f *flag.Flag) {
		if !any {
			fmt.Fprintln(w, "\nflags:")
			any = true
		}
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// parse parses a subcommand's flags, allowing flags after positional
// arguments (mnemo memctx RUN --json). A parse error is a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// usagef prints a hint for a usage error (to standard error) and returns
// errUsage.
func (m *Main) usagef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "mnemo: "+format+"\n", args...)
	fs.Usage()
	return errUsage
}

// checkIDs returns a usage error (exit 2) for the first of the named
// values that is set but is not a valid id (engine.ValidID: 1-128
// characters of [A-Za-z0-9_.:@-]). pairs alternates a flag's name ("--thread",
// or "RUN_ID" for an argument) and its value; an empty value is not checked.
// Read commands call it before opening the data directory, so an id that
// cannot exist is a usage error rather than an empty answer or "not found".
func (m *Main) checkIDs(fs *flag.FlagSet, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := pairs[i+1]; v != "" && !engine.ValidID(v) {
			return m.usagef(fs, "%s %q is not a valid id: it must be 1-128 characters of [A-Za-z0-9_.:@-]", pairs[i], v)
		}
	}
	return nil
}

// creates reports whether the running command may create the data
// directory: only the writing commands do (ingest, wm set, serve, mcp, and
// demo in its own scratch directory). A read on a path that holds no
// memory fails (engine.ErrNotDataDir) instead of creating an empty one.
func (m *Main) creates() bool {
	switch m.command {
	case "ingest", "serve", "mcp", "demo":
		return true
	case "wm":
		return m.wmSet
	}
	return false
}

// holder names this process in the data directory's lock file: "mnemo"
// and the command.
func (m *Main) holder() string {
	return strings.TrimSpace("mnemo " + m.command)
}

// open opens the engine on the data directory. Stored observations are
// rendered into contexts (render-only: no model is called; mnemo observe
// runs the observer).
func (m *Main) open(ctx context.Context) (*engine.Engine, error) {
	return m.openAt(ctx, m.Dir)
}

// openAt opens the engine on dir with the chosen embedder and the
// directory's stored memory configuration (mnemo.json, written by mnemo
// serve --config). It fails at once when mnemo serve holds dir.
func (m *Main) openAt(ctx context.Context, dir string) (*engine.Engine, error) {
	if err := checkNotServed(dir); err != nil {
		return nil, err
	}
	cfg, err := m.engineConfig(ctx, dir, nil, false)
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, cfg)
}

// engineConfig builds the engine configuration of dir: the chosen embedder,
// then mc (or, when nil, the directory's stored configuration). The
// observer model is built only withModel (mnemo serve).
func (m *Main) engineConfig(ctx context.Context, dir string, mc *memoryConfig, withModel bool) (engine.Config, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return engine.Config{}, fmt.Errorf("%w: %s is a file, not a directory", engine.ErrNotDataDir, dir)
	}
	emb, err := m.embedder(ctx)
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.Config{Dir: dir, Embedder: emb, Observe: &engine.ObserveConfig{}, Holder: m.holder(), MustExist: !m.creates(), SwitchEmbedder: m.switchEmbedder}
	if mc == nil {
		if mc, err = storedMemoryConfig(dir); err != nil {
			return cfg, fmt.Errorf("stored configuration: %w", err)
		}
	}
	if err := mc.apply(&cfg, m.Getenv, withModel); err != nil {
		return cfg, fmt.Errorf("configuration %s: %w", StoredConfigFile, err)
	}
	return cfg, nil
}

// embedder returns the embedder --embedder or $MNEMO_EMBEDDER names, or the
// default: use-lite when its weights are in the models directory, else
// hash-384.
//
// auto returns nil: the engine then uses the directory's recorded embedder,
// and for a new directory the default. A named embedder is an explicit
// choice: on a directory recorded with another one the command fails and
// says to run `mnemo --embedder NAME reindex --vectors`, which switches.
func (m *Main) embedder(ctx context.Context) (recall.Embedder, error) {
	switch m.Embedder {
	case "", "auto":
		return nil, nil
	}
	return m.embedderNamed(ctx, m.Embedder)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
