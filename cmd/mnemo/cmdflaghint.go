package main

import (
	"context"
	"flag"
	"io"
	"strings"
)

// commandFlagHint words where a flag goes that the global flags refused
// (err, from parsing args) when a command named after it takes it:
// "mnemo --resource alice threads" gets "--resource is a flag of threads:
// put it after the command: mnemo threads --resource alice". It returns ""
// for any other error, when no command follows the flag, or when that
// command's FlagSet does not define it (a flag its help only mentions,
// such as wm set's --schema in wm get's help, does not count).
func commandFlagHint(ctx context.Context, args []string, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	at := -1 // the flag's place in args
	for i, a := range args {
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && n == name {
			at = i
			break
		}
	}
	if at < 0 {
		return ""
	}
	_, _, inline := strings.Cut(args[at], "=")
	cmd := -1 // the command's place: the first word after the flag that names one and is not its value
	var f *flag.Flag
	for i := at + 1; i < len(args) && cmd < 0; i++ {
		if _, ok := commands[args[i]]; !ok {
			continue
		}
		f = commandFlag(ctx, args[i], subcommandOf(args, i), name)
		if i == at+1 && !inline && !isBoolFlag(f) {
			continue // the flag's value (mnemo --resource threads search q)
		}
		cmd = i
	}
	if cmd < 0 || f == nil {
		return ""
	}
	end := cmd + 1 // after the command and its subcommand (mnemo wm get --resource R)
	if subcommandOf(args, cmd) != "" {
		end++
	}
	// The global flags between the flag and the command stay before the
	// command; the rest moves after it with the flag.
	before, after := splitGlobal(args[at:cmd])
	line := []string{"mnemo"}
	for _, part := range [][]string{args[:at], before, args[cmd:end], after, args[end:]} {
		for _, w := range part {
			line = append(line, shellWord(w))
		}
	}
	return "--" + name + " is a flag of " + strings.Join(args[cmd:end], " ") + ": put it after the command: " + strings.Join(line, " ")
}

// subcommands are the commands whose flags follow a subcommand.
var subcommands = map[string]bool{"wm": true, "models": true}

// subcommandOf is the subcommand after the command args[cmd] ("get" in
// wm get), "" when it takes none or none follows.
func subcommandOf(args []string, cmd int) string {
	if sub := cmd + 1; subcommands[args[cmd]] && sub < len(args) && !strings.HasPrefix(args[sub], "-") {
		return args[sub]
	}
	return ""
}

// commandFlag is the flag --name that command cmd (with its subcommand
// sub, "" for none) defines in its FlagSet, nil when it defines none. It
// runs mnemo cmd [sub] -h, which parses no more than its flags.
func commandFlag(ctx context.Context, cmd, sub, name string) *flag.Flag {
	var sets []*flag.FlagSet
	h := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" },
		sawFlags: func(fs *flag.FlagSet) { sets = append(sets, fs) }}
	args := []string{cmd}
	if sub != "" {
		args = append(args, sub)
	}
	h.Run(ctx, append(args, "-h"))
	for _, fs := range sets {
		if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// isBoolFlag reports whether f is a flag that takes no value (--json).
func isBoolFlag(f *flag.Flag) bool {
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// splitGlobal splits words, a stretch of a command line before its
// command, into the global flags with their values (before) and the rest
// (after).
func splitGlobal(words []string) (before, after []string) {
	for i := 0; i < len(words); i++ {
		n, _, inline := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
		if !strings.HasPrefix(words[i], "-") || !globalFlags[n] {
			after = append(after, words[i])
			continue
		}
		before = append(before, words[i])
		if !inline && !boolGlobalFlags[n] && i+1 < len(words) {
			i++
			before = append(before, words[i])
		}
	}
	return before, after
}
