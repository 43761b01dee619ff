package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// printJSON writes v to standard output as indented JSON.
func (m *Main) printJSON(v any) error {
	enc := json.NewEncoder(m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ThreadsCommand is `mnemo threads`: list threads (metadata only). Like every
// command it embeds Main: the process environment and the global flags.
type ThreadsCommand struct{ *Main }

// Run parses the flags of `mnemo threads` from args and runs it.
func (c *ThreadsCommand) Run(ctx context.Context, args []string) (err error) {
	fs := c.flags("threads", "")
	resource := fs.String("resource", "", "only this resource's threads")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.noArgs(fs, "")
	}
	if err := c.checkIDs(fs, "--resource", *resource); err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	listed := 0
	defer func() {
		if err == nil {
			c.noteNoThreads(listed, *resource)
		}
	}()
	if *asJSON {
		arr := newJSONArray(c.Stdout)
		err := eachThreadPage(ctx, e, *resource, func(ts []engine.Thread) error {
			listed += len(ts)
			for _, t := range ts {
				if err := arr.Add(t); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		return arr.Close()
	}
	cols := &columns{w: c.Stdout}
	header := []string{"THREAD", "RESOURCE", "MESSAGES", "BYTES", "LAST MESSAGE", "LAST ACTIVE", "TITLE"}
	err = eachThreadPage(ctx, e, *resource, func(ts []engine.Thread) error {
		listed += len(ts)
		rows := make([][]string, 0, len(ts)+1)
		if header != nil && len(ts) > 0 {
			rows, header = append(rows, header), nil
		}
		for _, t := range ts {
			rows = append(rows, []string{t.ID, t.ResourceID, fmt.Sprint(t.MessageCount), fmt.Sprint(t.Bytes), t.UpdatedAt.Format("2006-01-02 15:04"),
				t.LastActiveAt.Format("2006-01-02 15:04"), t.Title})
		}
		return cols.Page(rows)
	})
	if err == nil && listed == 0 {
		_, err = fmt.Fprintln(c.Stdout, noThreadsLine)
	}
	return err
}

// noThreadsLine is what the text of mnemo threads is when it lists none,
// in place of a header alone: what creates a thread. --json prints [].
const noThreadsLine = "(no threads: a thread is created by storing its first message: mnemo ingest, POST /v1/threads/{thread}/messages, the MCP tool memory_append)"

// noteNoThreads says on standard error that resource (when not "") has
// no threads, when listed, the threads listed, is 0: a mistyped id
// ("nobody") printed the header alone and exited 0, as it still does (a
// resource exists only by its threads), where mnemo search notes a
// resource with no messages.
func (c *ThreadsCommand) noteNoThreads(listed int, resource string) {
	if listed == 0 && resource != "" {
		fmt.Fprintf(c.Stderr, "mnemo threads: note: resource %q has no threads; check the id: to list the stored resources, run: %s\n", resource, c.target().threadsCmd(""))
	}
}

// hasThreads reports whether resource has a stored thread; true when that
// cannot be read (no note is better than a wrong one).
func hasThreads(ctx context.Context, e *engine.Engine, resource string) bool {
	errFound := errors.New("a thread")
	err := e.EachThread(ctx, resource, func(engine.Thread) error { return errFound })
	return err != nil
}

// MessagesCommand is `mnemo messages`: print a thread's messages. Like every
// command it embeds Main: the process environment and the global flags.
type MessagesCommand struct{ *Main }

// Run parses the flags of `mnemo messages` from args and runs it.
func (c *MessagesCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("messages", "--thread T")
	thread := fs.String("thread", "", "thread id (required)")
	from := fs.Int64("from", 1, "first seq")
	to := fs.Int64("to", 0, "last seq (0: to the end)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	if err := c.checkNeededIDs(fs, "messages needs --thread", "--thread", *thread); err != nil {
		return err // first: --thread "" is empty, not missing
	}
	switch {
	case *thread == "":
		return c.usagef(fs, "messages needs --thread")
	case *from < 1 || *to < 0 || (*to > 0 && *to < *from):
		return c.valuef(fs, "--from must be >= 1 and --to 0 (the end) or >= --from")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	if *asJSON {
		arr := newJSONArray(c.Stdout)
		if err := eachMessage(ctx, e, *thread, *from, *to, func(m engine.Message) error { return arr.Add(m) }); err != nil {
			return err
		}
		return arr.Close()
	}
	return eachMessage(ctx, e, *thread, *from, *to, func(msg engine.Message) error {
		who := msg.Role
		if msg.Name != "" {
			who += " " + msg.Name
		}
		_, err := fmt.Fprintf(c.Stdout, "%4d  %-22s %s\n", msg.Seq, who, engine.Preview(msg))
		return err
	})
}

// oneLine returns s on one line (runs of white space as one space), cut
// to n runes with an ellipsis.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
