package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// dotID is an id "." or ".." a data directory holds: Kind is "thread",
// "resource", "message" or "run" (`mnemo check --json`'s dotIds; its
// reservedIds, thread or resource, use it too).
type dotID struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// String is the id as the note of `mnemo check` names it: `thread ".."`.
func (d dotID) String() string { return fmt.Sprintf("%s %q", d.Kind, d.ID) }

// dotIDs lists what e holds under the id "." or "..", which new data may
// no longer use (engine.ValidNewID) but a data directory written before
// may: threads, resources, messages, runs, in that order, "." before "..".
// Eight lookups by id, whatever the store's size; a lookup's error is
// returned.
func dotIDs(ctx context.Context, e *engine.Engine) ([]dotID, error) {
	stored := map[string]func(id string) (bool, error){
		"thread": func(id string) (bool, error) {
			_, err := e.GetThread(ctx, id)
			return err == nil, ignore(err, engine.ErrThreadNotFound)
		},
		"resource": func(id string) (bool, error) {
			p, err := e.ThreadsPage(ctx, engine.ThreadsRequest{Resources: []string{id}, Limit: 1})
			return err == nil && len(p.Threads) > 0, err
		},
		"message": func(id string) (bool, error) {
			ms, err := e.MessagesByID(ctx, "", id)
			return len(ms) > 0, err
		},
		"run": func(id string) (bool, error) {
			_, err := e.Journal().MemCtx(ctx, id)
			return err == nil, ignore(err, journal.ErrNotFound)
		},
	}
	var found []dotID
	for _, kind := range []string{"thread", "resource", "message", "run"} {
		for _, id := range []string{".", ".."} {
			ok, err := stored[kind](id)
			if err != nil {
				return nil, err
			}
			if ok {
				found = append(found, dotID{kind, id})
			}
		}
	}
	return found, nil
}

// ignore is err, or nil when err is target.
func ignore(err, target error) error {
	if errors.Is(err, target) {
		return nil
	}
	return err
}

// printDotIDs is the note of `mnemo check` on the ids dotIDs found.
func printDotIDs(w io.Writer, found []dotID) {
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(w, "mnemo check: note: %s stored before \".\" and \"..\" were refused for new data: a browser or JS client cannot put them in a URL path (the inspector shows them without links), and nothing more can be appended or written under them; the mnemo commands, and clients that send a path as written, read and erase them\n", joinIDs(found))
}

// joinIDs names found as the notes of `mnemo check` do: `thread "..", resource "."`.
func joinIDs(found []dotID) string {
	names := make([]string, len(found))
	for i, d := range found {
		names[i] = d.String()
	}
	return strings.Join(names, ", ")
}
