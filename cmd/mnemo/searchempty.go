package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// emptyScope says why a search found no hit when what it searched holds
// no message: thread (when not "") is stored under no message, or
// resource has none; "" when it does, or when that cannot be read (the
// search's answer stands). A mistyped id ("nobody") printed an empty
// table and exited 0, as a search of a stored resource that matches
// nothing does; the exit status stays 0 (a resource exists only by its
// threads, and searching one before its first message is no error),
// and the caller says this on standard error.
func emptyScope(ctx context.Context, e *engine.Engine, t target, resource, thread string) string {
	if thread != "" {
		th, err := e.GetThread(ctx, thread)
		if errors.Is(err, engine.ErrThreadNotFound) || (err == nil && th.MessageCount == 0) {
			return fmt.Sprintf("thread %q of resource %q has no messages, so nothing was searched; check the ids: to list its threads, run: %s", thread, resource, t.threadsCmd(resource))
		}
		return ""
	}
	errFound := errors.New("a message")
	err := e.EachThread(ctx, resource, func(th engine.Thread) error {
		if th.MessageCount > 0 {
			return errFound
		}
		return nil
	})
	if err != nil {
		return ""
	}
	return fmt.Sprintf("resource %q has no messages, so nothing was searched; check the id: to list the stored resources, run: %s", resource, t.threadsCmd(""))
}
