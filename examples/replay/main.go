// Command replay is a counterfactual-replay evaluator: for the runs of a
// thread it rebuilds each run's prompt with and without the recalled turns,
// asks a model both, and reports whether recall carried the answer (exact
// match and a token-overlap score between the two answers).
//
// It runs against any OpenAI-compatible endpoint (OPENAI_BASE_URL,
// OPENAI_API_KEY, MNEMO_MODEL) on an existing data directory:
//
//	go run ./examples/replay --dir ./mnemo-data --thread T
//
// With --offline it needs nothing: it ingests mnemo's sample conversation
// into a scratch directory, loads contexts for a few questions with recall,
// and answers them with a small scripted model served in-process (it answers
// with the sentence of the prompt that shares the most words with the
// question, or "I don't know").
//
//	go run ./examples/replay --offline
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/demodata"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

// offlineQuestions are asked in the sample's today thread when --offline.
var offlineQuestions = []string{
	demodata.TodayQuestion,
	"How long should the LED panel run for the tomato seedlings?",
	"Good morning, how are you?",
}

// run is the command: args are its flags, out gets the report. With
// --offline it works in a scratch directory, removed when run returns.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	offline := fs.Bool("offline", false, "use the sample conversation and a scripted in-process model")
	dir := fs.String("dir", "", "data directory (default $MNEMO_DIR or ./mnemo-data; a scratch directory with --offline)")
	thread := fs.String("thread", "", "thread whose runs to evaluate (default with --offline: "+demodata.TodayThread+")")
	limit := fs.Int("limit", 20, "most runs to evaluate, newest first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	model := os.Getenv("MNEMO_MODEL")
	if *offline {
		srv := startScriptedModel()
		defer srv.Close()
		cfg = openai.DefaultConfig("offline")
		cfg.BaseURL = srv.URL + "/v1"
		model = "scripted-reader"
		scratch, err := os.MkdirTemp("", "mnemo-replay-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		*dir = scratch
		if *thread == "" {
			*thread = demodata.TodayThread
		}
	} else {
		if base := os.Getenv("OPENAI_BASE_URL"); base != "" {
			cfg.BaseURL = base
		}
		if model == "" {
			return errors.New("set MNEMO_MODEL (and OPENAI_BASE_URL, OPENAI_API_KEY), or use --offline")
		}
		if *thread == "" {
			return errors.New("--thread is required without --offline")
		}
	}
	if *dir == "" {
		*dir = os.Getenv("MNEMO_DIR")
	}
	if *dir == "" {
		*dir = engine.DefaultDir
	}
	// An evaluator reads an existing directory: a mistyped --dir is
	// engine.ErrNotDataDir, not a new empty directory.
	e, err := engine.Open(ctx, engine.Config{Dir: *dir, MustExist: !*offline})
	if err != nil {
		return err
	}
	defer e.Close()
	if *offline {
		if err := makeOfflineRuns(ctx, e, *dir); err != nil {
			return err
		}
	}
	runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ThreadID: *thread, Limit: *limit})
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("thread %s has no runs (LoadContext writes one per call)", *thread)
	}
	return evaluate(ctx, e, openai.NewClientWithConfig(cfg), model, *thread, runs, out)
}

// evaluate replays each run with and without its recalled turns, asks
// model both prompts and prints a table comparing the answers.
func evaluate(ctx context.Context, e *engine.Engine, client *openai.Client, model, thread string, runs []journal.RunInfo, out io.Writer) error {
	fmt.Fprintf(out, "Counterfactual replay of %d runs of %s with model %s: the answer with recall vs without it.\n\n", len(runs), thread, model)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tRECALLED\tSAME\tOVERLAP\tWITH RECALL\tWITHOUT RECALL")
	changed := 0
	for _, r := range runs {
		rep, err := e.Replay(ctx, r.RunID, engine.ReplayOptions{WithoutRecalled: true})
		if err != nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\treplay failed: %v\t\n", r.RunID, err)
			continue
		}
		with, err := ask(ctx, client, model, rep.Original, rep.Record.Query)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.RunID, err)
		}
		without, err := ask(ctx, client, model, rep.Counterfactual, rep.Record.Query)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.RunID, err)
		}
		same := strings.TrimSpace(with) == strings.TrimSpace(without)
		if !same {
			changed++
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%.2f\t%s\t%s\n", r.RunID, len(rep.Removed), same, TokenOverlap(with, without), clip(with, 60), clip(without, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nRecall changed the answer in %d of %d runs.\n", changed, len(runs))
	return nil
}

// makeOfflineRuns ingests the sample and loads one context per question.
func makeOfflineRuns(ctx context.Context, e *engine.Engine, dir string) error {
	if _, err := demodata.Ingest(ctx, e, dir); err != nil {
		return err
	}
	if err := e.SyncIndexes(ctx); err != nil {
		return err
	}
	for i, q := range offlineQuestions {
		_, err := e.LoadContext(ctx, engine.LoadRequest{
			RunID: fmt.Sprintf("offline-%d", i+1), ThreadID: demodata.TodayThread, Query: q, RecentN: 2,
			Recall: &recall.Options{TopK: 2, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ask sends a context to the model with the run's query as the last user
// turn when the context does not end with it.
func ask(ctx context.Context, c *openai.Client, model string, mc *engine.Context, query string) (string, error) {
	msgs := mc.OpenAIMessages("You are a helpful assistant. Answer from the conversation.")
	if query != "" && (len(msgs) == 0 || msgs[len(msgs)-1].Content != query) {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: query})
	}
	resp, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: model, Messages: msgs})
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("the model returned no choices")
	}
	return resp.Choices[0].Message.Content, nil
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
