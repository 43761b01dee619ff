package main

import (
	"slices"
	"strings"
)

// pkgNames are the Go packages whose errors begin with their name
// ("engine: ", "pgstore: "): useful to a Go caller, noise to a CLI user,
// and repeated when one wraps another ("engine: pgstore: open …").
var pkgNames = []string{"engine", "pgstore", "pgrecall", "store", "msgstore", "journal", "working", "observe", "recall", "tools", "importer", "models", "evalset", "uselite", "server", "mcpserver", "inspector"}

// withoutPackages returns msg without the package names that begin it or
// one of its ": "-separated parts: "engine: store: open F: read schema
// version: …" reads "open F: read schema version: …". A name elsewhere
// ("the store: …" inside a part) is kept.
func withoutPackages(msg string) string { return withoutPackagesBut(msg, nil) }

// withoutPackagesBut is withoutPackages keeping the names that are among
// args, the command's arguments: a file named like a package ("mnemo
// ingest engine") is said by its name, "engine: no such file or
// directory"; it read "no such file or directory". A package's prefix
// then stays too, rarely met.
func withoutPackagesBut(msg string, args []string) string {
	for {
		before := msg
		for _, p := range pkgNames {
			if slices.Contains(args, p) {
				continue
			}
			msg = strings.TrimPrefix(msg, p+": ")
			msg = strings.ReplaceAll(msg, ": "+p+": ", ": ")
			msg = strings.ReplaceAll(msg, "\n"+p+": ", "\n")
		}
		if msg == before {
			return msg
		}
	}
}
