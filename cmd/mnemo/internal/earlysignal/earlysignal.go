// Package earlysignal catches SIGINT and SIGTERM from the start of the
// process: its init runs as soon as os/signal's has (it imports nothing
// else), before the seconds' share of a second the other packages' inits
// take (bleve's scorch, jsonschema: 0.1-0.3 s on a loaded machine). A
// signal then killed mnemo with no word said (the Go runtime's default);
// now it waits in C for main's handler, which says it stopped.
package earlysignal

import (
	"os"
	"os/signal"
	"syscall"
)

// C receives the process's SIGINT and SIGTERM; it holds two, the second
// one asking to stop at once.
var C = make(chan os.Signal, 2)

func init() { signal.Notify(C, os.Interrupt, syscall.SIGTERM) }

// Stop gives SIGINT and SIGTERM back their default action (a test binary,
// which runs no main to read C, must still die on Ctrl-C).
func Stop() { signal.Stop(C) }
