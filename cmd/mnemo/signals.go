package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/earlysignal"
)

// stopGrace is how long the CLI waits, after SIGINT or SIGTERM, for the
// command to stop on its cancelled context before it exits anyway; `mnemo
// serve` waits serveStopGrace. Exiting is safe at any point: everything
// acknowledged is in SQLite, and Open completes what was cut short (an
// erasure's purge, the index outbox).
const stopGrace = 3 * time.Second

// serveDrain is how long `mnemo serve` lets in-flight requests finish after
// SIGINT or SIGTERM (server.Config.ShutdownTimeout), and serveStopGrace
// when it exits anyway, the engine closed or not. A request may wait on
// the observer's model for seconds, and a supervisor gives a stopping
// service time before it kills it: Kubernetes' terminationGracePeriodSeconds
// is 30 by default, systemd's TimeoutStopSec 90 s. Both bounds end inside
// the shorter, with 5 s left for closing the engine. (serve exited 3 s
// after the signal, as every command does, cutting off such a request,
// while its log named a 30 s timeout.)
const (
	serveDrain     = 20 * time.Second
	serveStopGrace = 25 * time.Second
)

// graceFor is how long the CLI waits for command to stop after a signal.
func graceFor(command string) time.Duration {
	if command == "serve" {
		return serveStopGrace
	}
	return stopGrace
}

// stopOnSignal cancels the command's context on the first SIGINT or
// SIGTERM and exits with exitCode when the command has not returned within
// graceFor it, or at once on a second signal, saying last's line first
// when it returns one (what a command stopped at once had committed:
// Main.lastLine). Its notices are said with
// say (on a line of their own: Main.bar's say ends a progress bar's line
// first; they were written after the bar's frame). They start "mnemo
// COMMAND:" as every error line does, COMMAND being what running returns
// then ("mnemo:" before a command is chosen). It returns a function that
// reports the signal received, if any. The signals are those earlysignal
// caught from the process's start: one sent while the packages
// initialised (0.1-0.3 s on a loaded machine) killed mnemo with no word
// said; it is now noticed here, before the command begins ("mnemo:
// interrupt: stopping …", no command being chosen yet), and the command
// starts on a cancelled context.
func stopOnSignal(cancel context.CancelFunc, running func() string, say func(string), last func() string) func() os.Signal {
	sigs := earlysignal.C
	var got atomic.Value
	stop := func(sig os.Signal) {
		got.Store(sig)
		say(fmt.Sprintf("%s: %v: stopping (send it again to stop at once)\n", noticePrefix(running()), sig))
		cancel()
	}
	var early os.Signal
	select {
	case early = <-sigs: // sent while the packages initialised: stopped before the command begins
		stop(early)
	default:
	}
	go func() {
		sig := early
		if sig == nil {
			sig = <-sigs
			stop(sig)
		}
		grace := graceFor(running())
		select {
		case <-sigs:
		case <-time.After(grace):
			say(fmt.Sprintf("%s: still busy %s after %v; exiting (the next open completes the work)\n", noticePrefix(running()), grace, sig))
		}
		if line := last(); line != "" {
			say(fmt.Sprintf("%s: %s\n", noticePrefix(running()), line))
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

// noticePrefix is "mnemo COMMAND", or "mnemo" when command is "".
func noticePrefix(command string) string {
	if command == "" {
		return "mnemo"
	}
	return "mnemo " + command
}
