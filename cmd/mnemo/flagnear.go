package main

import (
	"flag"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// flagNear is what an unknown flag most likely meant, as a suffix for the
// flag package's error err from fs.Parse: " (did you mean --listen?)" for
// "flag provided but not defined: -listne" when fs defines --listen, the
// flag of fs at an edit distance of 1 or 2 (jsonkey.Closest, which also
// leaves out a tie and a name too short for the distance). It returns ""
// for any other error, or when no flag of fs is that close.
func flagNear(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	near := jsonkey.Closest(strings.TrimLeft(name, "-"), names)
	if near == "" {
		return ""
	}
	return " (did you mean --" + near + "?)"
}
