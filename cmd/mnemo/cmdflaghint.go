package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
)

// commandFlagHint words where a flag goes that the global flags refused
// (err, from parsing args) when a command named after it takes it:
// "mnemo --resource alice threads" gets "--resource is a flag of threads:
// put it after the command: mnemo threads --resource alice". It returns ""
// for any other error, when no command follows the flag, or when that
// command does not take it either.
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
	cmd := -1 // the command's place: the first word after the flag that names one
	for i := at + 1; i < len(args) && cmd < 0; i++ {
		if _, ok := commands[args[i]]; ok {
			cmd = i
		}
	}
	if cmd < 0 || !takesFlag(ctx, args[cmd], name) {
		return ""
	}
	end := cmd + 1 // after the command and its subcommand (mnemo wm get --resource R)
	if sub := cmd + 1; sub < len(args) && subcommands[args[cmd]] && !strings.HasPrefix(args[sub], "-") {
		end++
	}
	line := append(append(append(append([]string{"mnemo"}, args[:at]...), args[cmd:end]...), args[at:cmd]...), args[end:]...)
	for i, w := range line {
		line[i] = shellWord(w)
	}
	return "--" + name + " is a flag of " + args[cmd] + ": put it after the command: " + strings.Join(line, " ")
}

// subcommands are the commands whose flags follow a subcommand.
var subcommands = map[string]bool{"wm": true, "models": true}

// takesFlag reports whether the command cmd (or one of its subcommands)
// takes the flag --name: whether its help (mnemo help cmd) lists it.
func takesFlag(ctx context.Context, cmd, name string) bool {
	var help bytes.Buffer
	h := &Main{Stdin: strings.NewReader(""), Stdout: &help, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	h.Run(ctx, []string{"help", cmd})
	return regexp.MustCompile(`(^|[\s(\[|])--` + regexp.QuoteMeta(name) + `($|[\s=\])|])`).Match(help.Bytes())
}
