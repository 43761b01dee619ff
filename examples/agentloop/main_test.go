package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

func runLoop(t *testing.T, env map[string]string, stdin string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, strings.NewReader(stdin), &out, func(k string) string { return env[k] }); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	return out.String()
}

func openEngine(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir,
		WorkingMemory: &working.Config{SchemaOf: Profile{}, Scope: working.ScopeResource}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestOffline runs the example as `go run ./examples/agentloop --offline`
// does and checks the state changing turn by turn.
func TestOffline(t *testing.T) {
	dir := t.TempDir()
	out := runLoop(t, nil, "", "--offline", "--dir", dir)
	for _, want := range []string{
		`working memory v1: {"city":"Lyon","name":"Ana"}`,
		`working memory v2: {"city":"Porto","name":"Ana","todo":["book a train to Lyon for Christmas"]}`,
		`updateWorkingMemory({"todo":null})`,
		`working memory v3: {"city":"Porto","name":"Ana"}`,
		"assistant> You live in Porto.",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	e := openEngine(t, dir)
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	h, err := mem.History(context.Background(), working.ResourceKey("ana"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(h), 3; got != want {
		t.Fatalf("versions=%d, want %d", got, want)
	}
	for _, v := range h {
		if v.RunID == "" || v.ToolCallID == "" {
			t.Fatalf("version %d lacks its run or tool call id: %+v", v.Version, v)
		}
	}
	// The thread holds every turn: 4 user, 4 final answers, 3 tool-call
	// assistant messages and 3 tool results.
	msgs, err := e.Messages(context.Background(), "chat-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(msgs), 14; got != want {
		t.Fatalf("messages=%d, want %d", got, want)
	}
}

// TestAgainstEndpoint runs the online path (OPENAI_BASE_URL, OPENAI_API_KEY,
// MNEMO_MODEL) with the real go-openai client against a fake server, and
// checks what the loop sent.
func TestAgainstEndpoint(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithChat(ScriptedModel))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "test-model"}
	out := runLoop(t, env, "", "--dir", t.TempDir())
	if !strings.Contains(out, "assistant> You live in Porto.") {
		t.Fatalf("output:\n%s", out)
	}
	reqs := srv.ChatRequests()
	if got, want := len(reqs), 7; got != want {
		t.Fatalf("chat requests=%d, want %d (two per turn with an update, one without)", got, want)
	}
	for i, r := range reqs {
		if r.Model != "test-model" || len(r.Tools) != 2 || r.Tools[0].Function.Name != tools.UpdateWorkingMemoryName || r.Tools[1].Function.Name != SendEmailName {
			t.Fatalf("request %d: model %q, tools %+v", i, r.Model, r.Tools)
		}
		if r.Messages[0].Role != openai.ChatMessageRoleSystem || !strings.Contains(r.Messages[0].Content, "<working_memory") {
			t.Fatalf("request %d: no working memory in the system message: %+v", i, r.Messages[0])
		}
	}
	// The second request answers the first one's tool call.
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != openai.ChatMessageRoleTool || !strings.Contains(last.Content, `"ok":true`) {
		t.Fatalf("second request ends with %+v, want the tool result", last)
	}
	if !strings.Contains(reqs[6].Messages[0].Content, `"city": "Porto"`) {
		t.Fatalf("last request's memory:\n%s", reqs[6].Messages[0].Content)
	}
}

// TestBadArguments: a model that sends arguments the schema refuses gets the
// reason as the tool result, the loop goes on and the state stays.
func TestBadArguments(t *testing.T) {
	srv := openaitest.New(t)
	srv.Enqueue(
		openaitest.Calls(openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"city":5}`)),
		openaitest.Calls(openaitest.ToolCall("c2", tools.UpdateWorkingMemoryName, `{"city":"Lyon"`)), // broken JSON
		openaitest.Text("Sorry, let me try later.").WithCheck(func(r openai.ChatCompletionRequest) error {
			if !strings.Contains(r.Messages[len(r.Messages)-1].Content, "not valid JSON") {
				return errIs("the last tool result does not say the JSON is invalid")
			}
			return nil
		}),
	)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "m"}
	dir := t.TempDir()
	out := runLoop(t, env, "I live in Lyon\n", "--dir", dir, "--stdin")
	if !strings.Contains(out, "at /city: got number, want string") || !strings.Contains(out, "assistant> Sorry") {
		t.Fatalf("output:\n%s", out)
	}
	e := openEngine(t, dir)
	mem, _ := e.WorkingMemory()
	st, err := mem.Get(context.Background(), working.ResourceKey("ana"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 0 || st.Content != "{}" {
		t.Fatalf("state=%s v%d, want untouched", st.Content, st.Version)
	}
	// The broken arguments were stored as a JSON string, not dropped.
	msgs, _ := e.Messages(context.Background(), "chat-1", 0, 0)
	var args string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == "c2" {
				json.Unmarshal(tc.Arguments, &args)
			}
		}
	}
	if args != `{"city":"Lyon"` {
		t.Fatalf("stored arguments=%q", args)
	}
}

// TestArgumentsNotObject: arguments a model sends that are JSON but no
// object ([1]), or an object naming a key twice, are stored as a JSON
// string, as broken JSON is, and the loop goes on. Before, Engine.Append
// refused the turn for [1] (since it takes a call's arguments as an object
// or a string only) and the loop stopped with "invalid
// toolCalls[0].arguments"; the repeated key was stored as an object,
// which Append now refuses.
func TestArgumentsNotObject(t *testing.T) {
	for name, sent := range map[string]string{"List": `[1]`, "RepeatedKey": `{"city":"Lyon","city":"Porto"}`} {
		t.Run(name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(
				openaitest.Calls(openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, sent)),
				openaitest.Text("Sorry, let me try later."),
			)
			env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "m"}
			dir := t.TempDir()
			if out := runLoop(t, env, "I live in Lyon\n", "--dir", dir, "--stdin"); !strings.Contains(out, "assistant> Sorry") {
				t.Fatalf("output:\n%s", out)
			}
			msgs, _ := openEngine(t, dir).Messages(context.Background(), "chat-1", 0, 0)
			var args string
			for _, m := range msgs {
				for _, tc := range m.ToolCalls {
					json.Unmarshal(tc.Arguments, &args)
				}
			}
			if args != sent {
				t.Fatalf("stored arguments=%q, want the JSON string %q", args, sent)
			}
		})
	}
}

type errIs string

func (e errIs) Error() string { return string(e) }

// TestSendEmailDispatched: the side-effecting tool goes through the
// dispatch journal: the e-mail is sent once and its dispatch settled.
func TestSendEmailDispatched(t *testing.T) {
	dir := t.TempDir()
	out := runLoop(t, nil, "Please email Bob that I'm running late.\nDid the email to Bob go out?\n", "--offline", "--dir", dir, "--stdin")
	if !strings.Contains(out, "assistant> Done: the e-mail is sent.") || !strings.Contains(out, "assistant> Yes, it was sent.") {
		t.Fatalf("output:\n%s", out)
	}
	e := openEngine(t, dir)
	if us, err := e.Unsettled(context.Background(), "chat-1", "ana"); err != nil || len(us) != 0 {
		t.Fatalf("unsettled %+v (%v)", us, err)
	}
}

// TestCrashDemo runs `--offline --crash-demo`: the first process dies
// between the intent and the settlement; the next run's model sees the
// outcome as unknown (the scripted model answers so only when a send_email
// result says "Outcome unknown") and declines to resend; reconciliation
// settles it.
func TestCrashDemo(t *testing.T) {
	dir := t.TempDir()
	out := runLoop(t, nil, "", "--offline", "--crash-demo", "--dir", dir)
	for _, want := range []string{
		"✗ crash: the intent to call send_email",
		"assistant> I can't confirm it: I started sending that e-mail but its outcome was never recorded.",
		"reconcile: 1 dispatch(es) of unknown outcome",
		`settled as "not sent: the mail outbox has no record of it"`,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	e := openEngine(t, dir)
	ctx := context.Background()
	if us, err := e.Unsettled(ctx, "chat-1", "ana"); err != nil || len(us) != 0 {
		t.Fatalf("unsettled after reconciliation %+v (%v)", us, err)
	}
	msgs, _ := e.Messages(ctx, "chat-1", 0, 0)
	last := msgs[len(msgs)-1]
	if last.Role != engine.RoleTool || !strings.HasPrefix(last.Content, "Error: not sent") {
		t.Fatalf("the settlement is not the last message: %+v", last)
	}
}

// TestReconcileOtherThreadsSameCallID: call ids are unique per thread
// only (the scripted model numbers them by the history's length, as real
// servers reuse call_0), so reconciliation must not take another thread's
// sent e-mail with the same call id for this one's. chat-1 sends its
// e-mail; chat-2 then crashes before sending an e-mail whose call has the
// same id: reconciled, it is not sent. Before, the outbox was keyed by
// call id alone and chat-2's dispatch was settled as "sent".
func TestReconcileOtherThreadsSameCallID(t *testing.T) {
	dir := t.TempDir()
	runLoop(t, nil, "Please email Bob that I'm running late.\n", "--offline", "--dir", dir, "--stdin")
	out := runLoop(t, nil, "", "--offline", "--crash-demo", "--dir", dir, "--thread", "chat-2")
	if !strings.Contains(out, `settled as "not sent: the mail outbox has no record of it"`) {
		t.Fatalf("chat-2's unsent e-mail reconciled as sent:\n%s", out)
	}
	e := openEngine(t, dir)
	ctx := context.Background()
	ids := map[string]string{}
	for _, thread := range []string{"chat-1", "chat-2"} {
		msgs, err := e.Messages(ctx, thread, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			for _, tc := range m.ToolCalls {
				ids[thread] = tc.ID
			}
		}
	}
	if ids["chat-1"] == "" || ids["chat-1"] != ids["chat-2"] {
		t.Fatalf("call ids %v: the test needs both threads' send_email calls to share an id", ids)
	}
}

// TestReconcileSameThreadOtherRun: within one thread a call id comes back
// in another model answer (servers number calls call_0… per answer); an
// e-mail another run sent under that id is not this dispatch's.
func TestReconcileSameThreadOtherRun(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	ctx := context.Background()
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: SendEmailName, Arguments: json.RawMessage(`{"to":"Bob","body":"late"}`)}}}
	if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "chat-1.new", ThreadID: "chat-1", ResourceID: "ana", Message: call}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	a := &agent{e: e, opt: options{dir: dir, thread: "chat-1", resource: "ana"}, out: &out}
	old := openai.ToolCall{ID: "call_0", Function: openai.FunctionCall{Name: SendEmailName, Arguments: `{"to":"Bob","body":"late"}`}}
	if err := a.sendEmail("chat-1.old", old); err != nil {
		t.Fatal(err)
	}
	if err := a.reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `settled as "not sent: the mail outbox has no record of it"`) {
		t.Fatalf("another run's e-mail taken for this dispatch's:\n%s", out.String())
	}
	if err := a.sendEmail("chat-1.new", old); err != nil { // the same key now: sent
		t.Fatal(err)
	}
	sent, err := a.sent()
	if err != nil || len(sent) != 2 || !sent[outboxKey{"chat-1", "chat-1.new", "call_0"}] {
		t.Fatalf("outbox keys %v (%v)", sent, err)
	}
}
