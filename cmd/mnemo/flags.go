package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/shellword"
)

// flags returns a FlagSet for a subcommand. Its usage goes to standard
// output when it answers -h, to standard error after a usage error (the
// flag package and usagef write the error first).
func (m *Main) flags(name, argsHelp string) *flag.FlagSet {
	if cmd, _, ok := strings.Cut(name, " "); ok && cmd == m.command {
		m.sub = name // a subcommand's flags: its errors name it (exitStatus)
		m.setRunning(name)
	}
	fs := flag.NewFlagSet("mnemo "+name, flag.ContinueOnError)
	out := &usageWriter{err: m.Stderr, global: m.global}
	if m.sawFlags != nil {
		defer m.sawFlags(fs)
	}
	fs.SetOutput(out)
	fs.Usage = func() {
		w := m.Stdout
		if out.wrote {
			w = m.Stderr
		}
		global := "[--dir DIR | --db URL] "
		if dataless[name] {
			global = ""
		}
		fmt.Fprintln(w, strings.TrimRight("usage: mnemo "+global+name+" [flags] "+argsHelp, " "))
		printFlags(w, fs)
	}
	return fs
}

// dataless are the commands that open no data directory and ignore
// --dir and --db: their usage leaves those out ("usage: mnemo version
// [flags]"; it showed "mnemo [--dir DIR | --db URL] version").
var dataless = map[string]bool{"version": true, "models": true, "models fetch": true, "models list": true}

// usageWriter is a FlagSet's output: error messages go to standard error,
// and once one was written, the usage that follows goes there too.
type usageWriter struct {
	err   io.Writer
	wrote bool
	// global are the words before the command on the command line (its
	// global flags), for the hint that moves a global flag before it.
	global []string
}

func (u *usageWriter) Write(p []byte) (int, error) {
	u.wrote = true
	return u.err.Write(p)
}

// printFlags lists a FlagSet's flags as docs/cli.md spells them:
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
// arguments (mnemo memctx RUN --json). A parse error is a usage error,
// reported by parseError.
func parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package's own report: parseError words it
	fs.Usage = func() {}
	restore := decimalNumbers(fs)
	defer func() { fs.SetOutput(out); fs.Usage = usage; restore() }()
	all := args
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			fs.SetOutput(out)
			fs.Usage = usage
			restore() // the help lists the flags' own kinds ("int")
			return parseError(fs, all, err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// decimalNumbers makes fs's integer flags take decimal digits only, as
// the HTTP API's number parameters do (server.IntParam): the flag package
// reads 010 as octal 8, 0x10 as 16, 1_000 as 1000 and +5 as 5. A value
// with a sign or leading zeros is refused saying how to write it, any
// other that is not decimal digits as not a whole number. It returns
// the function that puts the flags' own values back (called more than
// once, it does so once).
func decimalNumbers(fs *flag.FlagSet) (restore func()) {
	var wrapped []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case int, int64, uint, uint64:
				f.Value = decimalValue{g}
				wrapped = append(wrapped, f)
			}
		}
	})
	return func() {
		for _, f := range wrapped {
			if d, ok := f.Value.(decimalValue); ok {
				f.Value = d.Getter
			}
		}
		wrapped = nil
	}
}

// decimalValue is an integer flag's value that takes decimal digits only
// (decimalNumbers).
type decimalValue struct{ flag.Getter }

var (
	// decimalDigits is an integer as mnemo writes one: no sign but a
	// minus, no leading zero.
	decimalDigits = regexp.MustCompile(`^(?:0|-?[1-9][0-9]*)$`)
	// signedDigits is decimal digits with a sign or leading zeros.
	signedDigits = regexp.MustCompile(`^[-+]?[0-9]+$`)
)

// errNotDecimal is decimalValue's error for a number written with a sign
// or leading zeros; valueError words it.
var errNotDecimal = errors.New("sign or leading zeros")

// Set refuses s unless it is decimal digits, then sets the flag from it.
func (d decimalValue) Set(s string) error {
	switch {
	case decimalDigits.MatchString(s):
		return d.Getter.Set(s)
	case signedDigits.MatchString(s):
		return errNotDecimal
	}
	return errors.New("parse error") // as the flag package says it: valueError words it
}

// notDecimal says what s, which signedDigits matches and decimalDigits
// does not, is written with: "a sign" (+5, -0) or "leading zeros" (010,
// -01).
func notDecimal(s string) string {
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") && decimalOf(s) == "0" {
		return "a sign"
	}
	return "leading zeros"
}

// decimalOf is the number signedDigits matched in s, written as mnemo
// writes it: "5" for "+5" and "005", "-5" for "-05", "0" for "-0".
func decimalOf(s string) string {
	minus := strings.HasPrefix(s, "-")
	digits := strings.TrimLeft(strings.TrimLeft(s, "+-"), "0")
	if digits == "" {
		return "0"
	}
	if minus {
		return "-" + digits
	}
	return digits
}

// globalFlags are mnemo's flags that go before the command (Main.Run).
var globalFlags = map[string]bool{"dir": true, "db": true, "embedder": true, "version": true, "migrate-under-load": true}

// boolGlobalFlags are the global flags that take no value.
var boolGlobalFlags = map[string]bool{"version": true, "migrate-under-load": true}

// flagName matches a flag as the flag package's errors spell it ("-top-k").
var flagName = regexp.MustCompile(`(flag |for |: )-([A-Za-z][\w-]*)`)

// parseError reports a flag the FlagSet fs refused (err from fs.Parse of
// args): the help asked for, a global flag given after the command (where
// it goes instead), or the flag package's error with the command's name and
// the flag spelled --name. It returns flag.ErrHelp or errUsage.
func parseError(fs *flag.FlagSet, args []string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok && globalFlags[name] {
		var global []string
		if u, ok := fs.Output().(*usageWriter); ok {
			global = u.global
		}
		fmt.Fprintf(fs.Output(), "%s: --%s is a global flag: put it before the command: %s\n",
			fs.Name(), name, globalFlagLine(global, strings.TrimPrefix(fs.Name(), "mnemo "), args, name))
		return errUsage
	}
	msg = fmt.Sprintf("%s: %s%s", fs.Name(), flagName.ReplaceAllString(msg, "$1--$2"), flagNear(fs, err))
	if v := valueError(fs, err); v != "" {
		msg = fs.Name() + ": " + v
	}
	if strings.HasPrefix(err.Error(), "invalid value ") || strings.HasPrefix(err.Error(), "invalid boolean value ") {
		// The flag is known and has a value, which does not parse.
		fmt.Fprintf(fs.Output(), "%s\n%s\n", msg, helpHint(fs))
		return errUsage
	}
	fmt.Fprintln(fs.Output(), msg)
	fs.Usage()
	return errUsage
}

// flagValueError matches the flag package's error for a number or
// duration that does not parse: its value, the flag and why.
var flagValueError = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([\w-]+): (parse error|value out of range|sign or leading zeros)$`)

// valueError words the flag package's error for a value of a number or
// duration flag of fs that does not parse ("invalid value \"x\" for flag
// -top-k: parse error") as "--top-k: x is not a whole number" (a number,
// a duration such as 90s or 24h; "is out of range" for one too large,
// a duration's with the longest there is),
// or returns "" for any other error.
func valueError(fs *flag.FlagSet, err error) string {
	m := flagValueError.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	value, uerr := strconv.Unquote(m[1])
	f := fs.Lookup(m[2])
	if uerr != nil || f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	what := ""
	switch g.Get().(type) {
	case int, int64:
		what = "a whole number"
	case uint, uint64:
		what = "a whole number from 0"
	case float64:
		what = "a number"
	case time.Duration:
		what = "a duration (such as 90s, 30m or 24h)"
	default:
		return ""
	}
	if _, ok := g.Get().(time.Duration); ok && durationTooLong(value) {
		return fmt.Sprintf("--%s: %s %s", m[2], shellWord(value), durationRange)
	}
	if m[3] == errNotDecimal.Error() {
		return fmt.Sprintf("--%s must be a whole number written without %s: %s, not %s", m[2], notDecimal(value), decimalOf(value), value)
	}
	if m[3] == "value out of range" {
		return fmt.Sprintf("--%s: %s is out of range", m[2], shellWord(value))
	}
	return fmt.Sprintf("--%s: %s is not %s", m[2], shellWord(value), what)
}

// durationSyntax matches what time.ParseDuration reads, whatever its size:
// a duration it refuses that matches is too long for a time.Duration.
var durationSyntax = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`)

// durationRange says why a duration durationTooLong refuses: "is out of
// range (the longest duration is 2562047h47m16.854775807s, about 292
// years)", the longest time.Duration.
var durationRange = fmt.Sprintf("is out of range (the longest duration is %s, about 292 years)", time.Duration(1<<63-1))

// durationTooLong reports whether s is a duration time.ParseDuration
// refuses only for its size: it says "invalid duration" for it as for
// "3d".
func durationTooLong(s string) bool {
	_, err := time.ParseDuration(s)
	return err != nil && durationSyntax.MatchString(s)
}

// globalFlagLine is the command line with the global flag name, which
// args (the arguments of command cmd, "wm get") give after it, moved
// before it: "mnemo --dir d serve --listen :7392" for mnemo serve --dir d
// --listen :7392. global are the words before the command on the command
// line; every other word keeps its place.
func globalFlagLine(global []string, cmd string, args []string, name string) string {
	flagWords := []string{"--" + name}
	rest := args
	for i, a := range args {
		n, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if a == "--" {
			break // the rest are arguments
		}
		if !strings.HasPrefix(a, "-") || n != name {
			continue
		}
		rest = append(args[:i:i], args[i+1:]...)
		switch {
		case hasValue:
			flagWords = append(flagWords, v)
		case !boolGlobalFlags[name] && i+1 < len(args):
			flagWords = append(flagWords, args[i+1])
			rest = append(args[:i:i], args[i+2:]...)
		}
		break
	}
	var line []string
	for _, part := range [][]string{global, flagWords, strings.Fields(cmd), rest} {
		for _, w := range part {
			line = append(line, shellWord(w))
		}
	}
	return "mnemo " + strings.Join(line, " ")
}

// shellWord quotes s for a shell when it holds anything but plain
// characters (shellword.Quote).
var shellWord = shellword.Quote

// usagef prints a hint for a usage error of the command line's shape (a
// flag or argument missing, stray, or two that exclude each other) to
// standard error, then the command's usage, and returns errUsage. The
// hint begins with the command: "mnemo search: " then the message, less
// the command's name when it starts with it (hintLine: "search needs
// --resource …" reads "mnemo search: needs --resource …").
func (m *Main) usagef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintln(fs.Output(), hintLine(fs, fmt.Sprintf(format, args...)))
	fs.Usage()
	return errUsage
}

// valuef is usagef for a value that broke a rule (--top-k 5000, --filter
// with an unknown operator, an id that cannot be one): the hint line, then
// helpHint instead of the usage, which would bury the one line that
// matters under the command's every flag. It returns errUsage (exit 2).
func (m *Main) valuef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s\n%s\n", hintLine(fs, fmt.Sprintf(format, args...)), helpHint(fs))
	return errUsage
}

// hintLine is msg as the first line of a usage error of fs's command:
// "mnemo search: " + msg, the command's name left out of msg where it
// begins it ("search needs --resource …" reads "mnemo search: needs
// --resource …"), so that every error begins "mnemo COMMAND: "; it read
// "mnemo search needs --resource …".
func hintLine(fs *flag.FlagSet, msg string) string {
	name := strings.TrimPrefix(fs.Name(), "mnemo ")
	return fs.Name() + ": " + strings.TrimPrefix(msg, name+" ")
}

// helpHint is the line that follows a value error of fs's command: where
// its flags are described ("Run 'mnemo help wm get' for the flags.").
func helpHint(fs *flag.FlagSet) string {
	return commandHelpHint(strings.TrimPrefix(fs.Name(), "mnemo "))
}

// commandHelpHint is helpHint for the command name ("search", "wm get").
func commandHelpHint(name string) string {
	return "Run 'mnemo help " + name + "' for the flags."
}

// checkIDs returns a value error (valuef, exit 2) for the first of the named
// values that is set but is not a valid id (engine.ValidID: 1-128
// characters of [A-Za-z0-9_.:@-]; in the API's words, `--thread must be
// …; got " " at byte 1`: engine.IDRule, engine.IDFault), or is a flag given as "" (--resource "",
// a script's unset "$R": read as left out, it widened the command to every
// resource) or an argument given as "" (mnemo memctx "": "RUN_ID is
// empty"). pairs alternates a flag's name ("--thread", or "RUN_ID" for an
// argument the caller has) and its value; a flag left out is not checked.
// Commands call it before their "needs --thread" checks, so --thread ""
// is said to be empty rather than missing, and before opening the data
// directory, so an id that cannot exist is a usage error rather than an
// empty answer or "not found". Every flag of pairs may be left out
// ("give an id or leave the flag out"); flags the command needs go to
// checkNeededIDs.
func (m *Main) checkIDs(fs *flag.FlagSet, pairs ...string) error {
	return m.checkNeededIDs(fs, "", pairs...)
}

// checkNeededIDs is checkIDs for flags of which the command needs one,
// need saying so in its usage error's words ("context needs --thread",
// "wm get needs exactly one of --thread and --resource"): a flag of pairs
// given as "" is told to leave the flag out only when another of pairs
// has a value, else "--thread is empty: give an id (context needs
// --thread)". Told to leave a needed flag out, the user got "needs
// --thread" next. need "" is checkIDs.
func (m *Main) checkNeededIDs(fs *flag.FlagSet, need string, pairs ...string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given["--"+f.Name] = true })
	advice := "give an id or leave the flag out"
	if need != "" && !anyValue(pairs) {
		advice = "give an id (" + need + ")"
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if name := pairs[i]; pairs[i+1] == "" && !strings.HasPrefix(name, "-") {
			return m.valuef(fs, "%s is empty: give an id", name)
		}
		if pairs[i+1] == "" && given[pairs[i]] {
			return m.valuef(fs, "%s is empty: %s", pairs[i], advice)
		}
		if v := pairs[i+1]; v != "" && !engine.ValidID(v) {
			return m.valuef(fs, "%s %s; got %s", pairs[i], engine.IDRule, engine.IDFault(v))
		}
	}
	return nil
}

// anyValue reports whether a value of pairs (name, value, name, value …)
// is not "".
func anyValue(pairs []string) bool {
	for i := 1; i < len(pairs); i += 2 {
		if pairs[i] != "" {
			return true
		}
	}
	return false
}

// checkGiven returns a value error (valuef, exit 2) for the first of the named
// flags that was given as "" (a script's unset "$F"), which would read as
// left out: `serve --tokens ""` served every request as the operator's,
// `memctx --html ""` printed the record instead of writing a page.
// pairs alternates a flag's name ("--tokens") and what to give instead
// ("a token file"); a flag left out is not checked.
func (m *Main) checkGiven(fs *flag.FlagSet, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		name := pairs[i]
		f := fs.Lookup(strings.TrimPrefix(name, "--"))
		given := false
		fs.Visit(func(v *flag.Flag) { given = given || v == f })
		if given && f.Value.String() == "" {
			return m.valuef(fs, "%s is empty: give %s or leave the flag out", name, pairs[i+1])
		}
	}
	return nil
}

// noArgs returns a usage error (exit 2) when fs parsed a positional
// argument, for a command that takes none; hint, when not empty, follows
// in parentheses ("a query goes in --query").
func (m *Main) noArgs(fs *flag.FlagSet, hint string) error {
	if fs.NArg() == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s takes no arguments, got %q", strings.TrimPrefix(fs.Name(), "mnemo "), fs.Args())
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return m.usagef(fs, "%s", msg)
}
