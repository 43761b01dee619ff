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
// leaves out a tie and a name too short for the distance), or the flag of
// fs that other tools' flag of that name sets (flagWords: --addr, --port
// for --listen). It returns "" for any other error, or when no flag of fs
// is that close.
func flagNear(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	name = strings.TrimLeft(name, "-")
	near := jsonkey.Closest(name, names)
	if w, ok := flagWords[strings.ToLower(name)]; ok && near == "" && fs.Lookup(w) != nil {
		near = w
	}
	if near == "" {
		return ""
	}
	return " (did you mean --" + near + "?)"
}

// flagWords maps the flag names other tools give what a mnemo flag does
// to that flag, for a did-you-mean: used only when the command's FlagSet
// defines it.
var flagWords = map[string]string{
	"addr": "listen", "address": "listen", "bind": "listen", "port": "listen", "http": "listen",
	"data-dir": "dir", "datadir": "dir", "directory": "dir", "data": "dir",
	"database": "db", "dsn": "db",
	"k": "top-k", "topk": "top-k", "limit": "top-k",
}
