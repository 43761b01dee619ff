package main

// The agent's own side-effecting tool, send_email, goes through mnemo's
// dispatch journal: the intent is committed before the e-mail is sent and
// the result after, so a crash in between leaves an "outcome unknown"
// that the next run sees instead of a call that silently vanished (and
// that the model might repeat).
//
//	go run ./examples/agentloop --offline --crash-demo
//
// runs two agent processes on one data directory: the first crashes after
// recording its intent to send an e-mail and before sending it; the second
// is asked whether the e-mail went out, sees the unknown outcome (the model
// declines to send it again blindly), and the application then reconciles
// with its mail outbox and settles the dispatch.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
)

// SendEmailName is the agent's side-effecting tool.
const SendEmailName = "send_email"

// sendEmailTool is its definition, offered to the model next to memory's
// tools.
var sendEmailTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name:        SendEmailName,
	Description: "Send an e-mail on the user's behalf. It cannot be undone: never send the same e-mail twice.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}},` +
		`"required":["to","body"],"additionalProperties":false}`),
}}

// errCrashed simulates the agent process dying (--crash-demo).
var errCrashed = errors.New("the agent process died")

// outboxFile is the "mail server" of the example: one JSON line per
// e-mail sent (outboxLine).
func (a *agent) outboxFile() string { return filepath.Join(a.opt.dir, "mail-outbox.txt") }

// outboxLine is one e-mail in the outbox. Its key is the dispatch's:
// (thread, run, call id). A call id alone is no key: it is unique within
// one model answer only (servers number calls call_0, call_1… afresh, and
// another thread's calls have the same ids), and the run says which answer.
type outboxLine struct {
	Thread string `json:"thread"`
	Run    string `json:"run"`
	CallID string `json:"callId"`
	To     string `json:"to"`
	Body   string `json:"body"`
}

// outboxKey is the key of an e-mail in the outbox.
type outboxKey struct{ thread, run, callID string }

// dispatch performs one send_email call of msg through the dispatch
// journal and returns the tool result the model gets.
func (a *agent) dispatch(ctx context.Context, runID string, msg engine.Message, tc openai.ToolCall) (string, error) {
	if _, err := a.e.BeginDispatch(ctx, engine.DispatchIntent{RunID: runID, ThreadID: a.opt.thread, ResourceID: a.opt.resource,
		Message: msg, CallID: tc.ID}); err != nil {
		return "", err
	}
	if a.crashAfterIntent {
		fmt.Fprintf(a.out, "  ✗ crash: the intent to call %s(%s) is recorded; the process dies before the e-mail is sent\n", tc.Function.Name, tc.Function.Arguments)
		return "", errCrashed
	}
	set := engine.Settlement{RunID: runID, ResourceID: a.opt.resource, CallID: tc.ID}
	if err := a.sendEmail(runID, tc); err != nil {
		set.Error = err.Error()
	} else {
		set.Result = "sent"
	}
	if _, err := a.e.SettleDispatch(ctx, set); err != nil {
		return "", err
	}
	if set.Error != "" {
		return "Error: " + set.Error, nil
	}
	return set.Result, nil
}

// sendEmail is the action itself: it appends the e-mail to the outbox,
// under the key of the dispatch (this thread, runID, the call's id).
func (a *agent) sendEmail(runID string, tc openai.ToolCall) error {
	var args struct{ To, Body string }
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil || args.To == "" {
		return fmt.Errorf("bad arguments: %s", tc.Function.Arguments)
	}
	line, err := json.Marshal(outboxLine{Thread: a.opt.thread, Run: runID, CallID: tc.ID, To: args.To, Body: args.Body})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(a.outboxFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

// sent reads the keys of the e-mails in the outbox.
func (a *agent) sent() (map[outboxKey]bool, error) {
	sent := map[outboxKey]bool{}
	f, err := os.Open(a.outboxFile())
	if errors.Is(err, os.ErrNotExist) {
		return sent, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l outboxLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", a.outboxFile(), err)
		}
		sent[outboxKey{l.Thread, l.Run, l.CallID}] = true
	}
	return sent, sc.Err()
}

// reconcile settles the thread's dispatches of unknown outcome by asking
// the service that owns the action (here: the outbox file) what happened
// to each, by the dispatch's key (thread, run, call id).
func (a *agent) reconcile(ctx context.Context) error {
	us, err := a.e.Unsettled(ctx, a.opt.thread, a.opt.resource)
	if err != nil {
		return err
	}
	sent, err := a.sent()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.out, "\nreconcile: %d dispatch(es) of unknown outcome\n", len(us))
	for _, d := range us {
		set := engine.Settlement{RunID: d.RunID, ResourceID: a.opt.resource, CallID: d.CallID}
		if sent[outboxKey{d.ThreadID, d.RunID, d.CallID}] {
			set.Result = "sent"
		} else {
			set.Error = "not sent: the mail outbox has no record of it"
		}
		if _, err := a.e.SettleDispatch(ctx, set); err != nil {
			return err
		}
		fmt.Fprintf(a.out, "  %s(%s) of run %s: settled as %q\n", d.Name, d.Arguments, d.RunID, set.Result+set.Error)
	}
	return nil
}

// CrashScript is --crash-demo's conversation: the first turn runs in the
// process that crashes, the second in the next one.
var CrashScript = []string{
	"Please email Bob that I'm running late.",
	"Did the email to Bob go out?",
}

// crashDemo runs the two processes of --crash-demo on o.dir.
func crashDemo(ctx context.Context, o options, newAgent func(*engine.Engine) *agent) error {
	open := func() (*engine.Engine, error) { return engine.Open(ctx, engineConfig(o.dir)) }
	e, err := open()
	if err != nil {
		return err
	}
	first := newAgent(e)
	first.crashAfterIntent = true
	fmt.Fprintln(first.out, "--- process 1 ---")
	err = first.turn(ctx, 1, CrashScript[0])
	e.Close() // a real crash would not close; the journal is committed either way
	if !errors.Is(err, errCrashed) {
		return fmt.Errorf("process 1 should have crashed: %v", err)
	}
	if e, err = open(); err != nil {
		return err
	}
	defer e.Close()
	second := newAgent(e)
	fmt.Fprintln(second.out, "\n--- process 2 (same data directory) ---")
	if err := second.turn(ctx, 1, CrashScript[1]); err != nil {
		return err
	}
	return second.reconcile(ctx)
}
