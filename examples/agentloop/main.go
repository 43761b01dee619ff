// Command agentloop is a complete agent loop over mnemo with go-openai:
// LoadContext → chat completion with the context's tools → handle the tool
// calls through the engine (journaled, applied at most once) → append the
// assistant and tool messages → repeat until the model answers.
//
// The agent keeps a working memory about the user (a Profile, resource
// scope) that the model updates with the updateWorkingMemory tool; after
// every update the example prints the state, so you can watch it change.
// Its own side-effecting tool, send_email, goes through mnemo's dispatch
// journal (dispatch.go); --crash-demo shows a crash between the intent and
// the settlement, and the next run seeing "outcome unknown".
//
// Usage:
//
//	go run ./examples/agentloop --offline         # scripted in-process model, no network
//	go run ./examples/agentloop --offline --crash-demo  # a crash between intent and settlement
//	OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… MNEMO_MODEL=gpt-4o-mini \
//	  go run ./examples/agentloop                 # any OpenAI-compatible endpoint
//
// Without --offline it needs MNEMO_MODEL and reads OPENAI_BASE_URL (default
// the OpenAI API) and OPENAI_API_KEY. User turns come from the built-in
// script unless --stdin is given, in which case each line of standard input
// is one user turn. The data directory is a fresh temporary one unless --dir
// is given.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/oklog/ulid/v2"
	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/working"
)

// Profile is the working memory the agent keeps about its user. Its JSON
// Schema (reflected with invopop/jsonschema) is the updateWorkingMemory
// tool's parameters; every field is optional in an update.
type Profile struct {
	Name  string   `json:"name,omitempty" jsonschema_description:"The user's name"`
	City  string   `json:"city,omitempty" jsonschema_description:"Where the user lives now"`
	Todo  []string `json:"todo,omitempty" jsonschema_description:"Things the user asked to be reminded of"`
	Notes string   `json:"notes,omitempty" jsonschema_description:"Anything else worth remembering"`
}

// SystemPrompt is the agent's own system prompt; LoadContext's memory part
// is appended to it.
const SystemPrompt = "You are a concise, friendly assistant. Use your working memory to remember facts about the user."

// Script is the built-in conversation: each entry is one user turn.
var Script = []string{
	"Hi! I'm Ana and I live in Lyon.",
	"I just moved to Porto! Remind me to book a train to Lyon for Christmas.",
	"Done, I booked the train!",
	"Where do I live now?",
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	offline  bool
	dir      string
	thread   string
	resource string
	maxSteps int
	stdin    bool
	crash    bool
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("agentloop", flag.ContinueOnError)
	var o options
	fs.BoolVar(&o.offline, "offline", false, "use a scripted in-process OpenAI-compatible server (no network)")
	fs.StringVar(&o.dir, "dir", "", "data directory (default: a fresh temporary directory, removed at exit)")
	fs.StringVar(&o.thread, "thread", "chat-1", "thread id")
	fs.StringVar(&o.resource, "resource", "ana", "resource (user) id")
	fs.IntVar(&o.maxSteps, "max-steps", 6, "model calls per user turn at most")
	fs.BoolVar(&o.stdin, "stdin", false, "read user turns from standard input, one per line")
	fs.BoolVar(&o.crash, "crash-demo", false, "run two agent processes: the first crashes between a send_email intent and its settlement")
	if err := fs.Parse(args); err != nil {
		return err
	}

	var client *openai.Client
	model := getenv("MNEMO_MODEL")
	if o.offline {
		srv := openaitest.Start(openaitest.WithChat(ScriptedModel))
		defer srv.Close()
		client, model = srv.Client(), "scripted"
		fmt.Fprintf(stdout, "offline: scripted model at %s\n", srv.URL)
	} else {
		if model == "" {
			return errors.New("MNEMO_MODEL is not set (or use --offline)")
		}
		cfg := openai.DefaultConfig(getenv("OPENAI_API_KEY"))
		if base := getenv("OPENAI_BASE_URL"); base != "" {
			cfg.BaseURL = base
		}
		client = openai.NewClientWithConfig(cfg)
	}

	if o.dir == "" {
		tmp, err := os.MkdirTemp("", "mnemo-agentloop-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		o.dir = tmp
	}
	// A session id keeps run ids unique when --dir is reused: the journal
	// would otherwise answer a new call that reuses an old call id (the
	// scripted model numbers its calls) with the old recorded result.
	newAgent := func(e *engine.Engine) *agent {
		return &agent{e: e, client: client, model: model, opt: o, out: stdout, session: ulid.Make().String()}
	}
	if o.crash {
		return crashDemo(ctx, o, newAgent)
	}
	e, err := engine.Open(ctx, engineConfig(o.dir))
	if err != nil {
		return err
	}
	defer e.Close()

	turns := Script
	if o.stdin {
		turns = nil
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				turns = append(turns, line)
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	a := newAgent(e)
	for i, text := range turns {
		if err := a.turn(ctx, i+1, text); err != nil {
			return err
		}
	}
	return nil
}

// engineConfig is the agent's memory: a Profile in working memory.
func engineConfig(dir string) engine.Config {
	return engine.Config{Dir: dir, WorkingMemory: &working.Config{SchemaOf: Profile{}, Scope: working.ScopeResource}}
}

// agent runs turns of one thread.
type agent struct {
	e       *engine.Engine
	client  *openai.Client
	model   string
	opt     options
	out     io.Writer
	session string
	// crashAfterIntent makes dispatch fail with errCrashed once the
	// intent is recorded (--crash-demo).
	crashAfterIntent bool
}

// turn stores the user's message and loops model calls until the model
// answers without tool calls.
func (a *agent) turn(ctx context.Context, n int, text string) error {
	fmt.Fprintf(a.out, "\nuser> %s\n", text)
	if err := a.append(ctx, engine.Message{Role: engine.RoleUser, Content: text}); err != nil {
		return err
	}
	for step := 0; step < a.opt.maxSteps; step++ {
		// One run per model call: its memctx record says what the model saw,
		// and tool calls are journaled under it.
		runID := fmt.Sprintf("%s.%s.turn%d.step%d", a.opt.thread, a.session, n, step)
		c, err := a.e.LoadContext(ctx, engine.LoadRequest{RunID: runID, ThreadID: a.opt.thread, ResourceID: a.opt.resource})
		if err != nil {
			return err
		}
		resp, err := a.client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: a.model, Messages: c.OpenAIMessages(SystemPrompt), Tools: append(c.Tools, sendEmailTool),
		})
		if err != nil {
			return fmt.Errorf("chat completion: %w", err)
		}
		if len(resp.Choices) == 0 {
			return errors.New("chat completion: no choices")
		}
		msg := resp.Choices[0].Message
		stored := assistantMessage(msg)
		stored.ID = ulid.Make().String() // the dispatch journal names it
		if err := a.append(ctx, stored); err != nil {
			return err
		}
		if len(msg.ToolCalls) == 0 {
			fmt.Fprintf(a.out, "assistant> %s\n", msg.Content)
			return nil
		}
		for _, tc := range msg.ToolCalls {
			if tc.Function.Name == SendEmailName { // the agent's own side effect
				res, err := a.dispatch(ctx, runID, stored, tc)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.out, "  → %s(%s) = %s\n", tc.Function.Name, tc.Function.Arguments, res)
				continue
			}
			res, err := a.e.HandleToolCall(ctx, runID, a.opt.thread, a.opt.resource, tc)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.out, "  → %s(%s) = %s\n", tc.Function.Name, tc.Function.Arguments, res.Content)
			if err := a.append(ctx, engine.Message{Role: engine.RoleTool, ToolCallID: tc.ID, Name: tc.Function.Name, Content: res.Content}); err != nil {
				return err
			}
		}
		if err := a.printMemory(ctx); err != nil {
			return err
		}
	}
	return fmt.Errorf("turn %d: no answer after %d model calls", n, a.opt.maxSteps)
}

func (a *agent) append(ctx context.Context, m engine.Message) error {
	_, err := a.e.Append(ctx, engine.AppendRequest{ThreadID: a.opt.thread, ResourceID: a.opt.resource, Messages: []engine.Message{m}})
	return err
}

// assistantMessage converts the model's message for storage. Arguments that
// are not a JSON object giving each key once (models do send broken JSON,
// and now and then a list, a number or a key twice), which Engine.Append
// refuses, are stored as a JSON string of the text sent, so the turn is
// kept as it happened (engine.ToolCallArguments).
func assistantMessage(msg openai.ChatCompletionMessage) engine.Message {
	m := engine.Message{Role: engine.RoleAssistant, Content: msg.Content}
	for _, tc := range msg.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: engine.ToolCallArguments(tc.Function.Arguments)})
	}
	return m
}

func (a *agent) printMemory(ctx context.Context) error {
	mem, err := a.e.WorkingMemory()
	if err != nil {
		return err
	}
	key, err := mem.Key(a.opt.thread, a.opt.resource)
	if err != nil {
		return err
	}
	st, err := mem.Get(ctx, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.out, "  working memory v%d: %s\n", st.Version, st.Content)
	return nil
}
