// Command observe demonstrates mnemo's observational memory on a LoCoMo
// conversation, offline: it imports ../shared/data/locomo/locomo10-dev.json
// (one resource per sample, one thread per session), runs the observer and
// the reflector on every session of one sample against an in-process,
// OpenAI-compatible fake model (scripted: it extracts one observation per
// turn and condenses by concatenation; it is not a language model), and
// prints a LoadContext memctx that lists the observations it rendered.
//
// Without --dir it works in a scratch directory that it removes at exit.
// The LoCoMo file is --data, else $MNEMO_SHARED_DATA/locomo/locomo10-dev.json
// when that variable is set (as for the tests), else the workspace path.
// LoCoMo is public: data/locomo10.json of
// https://github.com/snap-research/LoCoMo (locomo10-dev.json holds five of
// its ten samples, conv-26 among them); --data takes either file.
// Run it, then inspect the ranges with the CLI:
//
//	go run ./examples/observe --dir /tmp/obs-demo
//	go run ./cmd/mnemo --dir /tmp/obs-demo observations --resource conv-26 --all
//
// Everything runs in-process; nothing reaches a network.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/observe"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return
	case err != nil:
		fmt.Fprintln(os.Stderr, "observe:", err)
		os.Exit(1)
	}
}

// defaultData is the LoCoMo dev file: under $MNEMO_SHARED_DATA when set,
// else in the workspace beside the repository.
func defaultData() string {
	if d := os.Getenv("MNEMO_SHARED_DATA"); d != "" {
		return filepath.Join(d, "locomo", "locomo10-dev.json")
	}
	return filepath.Join("..", "shared", "data", "locomo", "locomo10-dev.json")
}

// whereLoCoMo says where the LoCoMo file comes from and how to point the
// example at it, for a clone without the workspace's data beside it.
const whereLoCoMo = "LoCoMo is a public benchmark (https://github.com/snap-research/LoCoMo, file data/locomo10.json, CC BY-NC 4.0); " +
	"download that file and pass --data FILE (any of its samples: --sample conv-26, the default, is its first), " +
	"or set MNEMO_SHARED_DATA to a directory holding locomo/locomo10-dev.json"

// run is the command: args are its flags, out gets the report. Without
// --dir the data directory is a scratch one, removed when run returns;
// nothing is created when the LoCoMo file is missing.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	dir := fs.String("dir", "", "data directory, kept (default: a scratch directory removed at exit)")
	data := fs.String("data", defaultData(), "LoCoMo file")
	sample := fs.String("sample", "conv-26", "LoCoMo sample (resource) to observe")
	threshold := fs.Int("threshold", 300, "observer threshold and chunk size in tokens")
	recentN := fs.Int("recent", 6, "recent window, never observed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*data); err != nil {
		return fmt.Errorf("LoCoMo data not found (%v): %s", err, whereLoCoMo)
	}
	scratchNote := ""
	if *dir == "" {
		d, err := os.MkdirTemp("", "mnemo-observe-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d) // runs after the engine's Close below
		*dir, scratchNote = d, " (scratch, removed at exit; --dir DIR keeps one)"
	}

	var calls atomic.Int64
	srv := scriptedServer(&calls)
	defer srv.Close()
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: "demo", Model: "scripted-observer"})
	if err != nil {
		return err
	}

	e, err := engine.Open(ctx, engine.Config{Dir: *dir, RecentN: *recentN, Observe: &engine.ObserveConfig{
		Model: model, Threshold: *threshold, ChunkTokens: *threshold, Scope: engine.ObserveScopeResource,
	}})
	if err != nil {
		return err
	}
	defer e.Close()
	rep, err := importer.Import(ctx, e, *data, importer.Options{Format: importer.FormatLoCoMo})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "data dir %s%s\nimported %d resources, %d threads, %d messages (%d already stored)\n\n",
		*dir, scratchNote, rep.Resources, rep.Threads, rep.Messages, rep.Duplicates)

	threads, err := e.ListThreads(ctx, *sample)
	if err != nil {
		return err
	}
	if len(threads) == 0 {
		return fmt.Errorf("no threads for sample %s", *sample)
	}
	if err := observeAll(ctx, e, threads, out, &calls); err != nil {
		return err
	}
	last := threads[len(threads)-1]
	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "observe-demo", ThreadID: last.ID, ReplaceRun: true})
	if err != nil {
		return err
	}
	return printContext(out, last.ID, c)
}

// scriptedServer serves scriptedModel as an OpenAI-compatible chat
// endpoint on loopback, counting the requests in calls.
func scriptedServer(calls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer := scriptedModel(req.Messages[len(req.Messages)-1].Content)
		json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: "demo", Object: "chat.completion", Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: answer}, FinishReason: "stop"}},
		})
	}))
}

// observeAll runs the observer and reflector on every thread, prints the
// ranges each observed and reflected, then observes again to show that a
// second pass calls no model.
func observeAll(ctx context.Context, e *engine.Engine, threads []engine.Thread, out io.Writer, calls *atomic.Int64) error {
	for _, th := range threads {
		res, err := e.Observe(ctx, th.ID, observe.Options{Force: true})
		if err != nil {
			return err
		}
		var ranges []string
		for _, o := range res.Observations {
			ranges = append(ranges, fmt.Sprintf("%d–%d", o.FromSeq, o.ToSeq))
		}
		line := fmt.Sprintf("%-22s %3d messages  observed %-18s", th.ID, th.MessageCount, strings.Join(ranges, ","))
		if r := res.Reflection; r != nil {
			line += fmt.Sprintf("  reflected %d–%d from %d", r.FromSeq, r.ToSeq, len(r.Sources))
		}
		fmt.Fprintln(out, line)
	}
	before := calls.Load()
	// Observing again changes nothing and calls no model: the ranges are
	// observed, and the calls are memoized by sequence.
	for _, th := range threads {
		if _, err := e.Observe(ctx, th.ID, observe.Options{Force: true}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\nmodel calls: %d (a second pass over every session made %d)\n\n", before, calls.Load()-before)
	return nil
}

// printContext prints the LoadContext of thread: the memctx's
// observation references and the start of the rendered observations.
func printContext(out io.Writer, thread string, c *engine.Context) error {
	fmt.Fprintf(out, "LoadContext %s: system part %d chars, %d recent messages\n", thread, len(c.System), len(c.Messages))
	fmt.Fprintf(out, "memctx observationCount %d, observations:\n", c.MemCtx.ObservationCount)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, ref := range c.MemCtx.Observations {
		if err := enc.Encode(ref); err != nil {
			return err
		}
	}
	i := strings.Index(c.System, "<observations>")
	end := min(len(c.System), i+900)
	fmt.Fprintf(out, "\nsystem part (start):\n%s…\n", c.System[i:end])
	return nil
}

// scriptedModel stands in for a language model. Observer requests get one
// observation per turn: "<speaker>: <first sentence>", citing the turn's
// seq. Reflector requests get one item per source, its first line, citing
// the source id.
func scriptedModel(user string) string {
	lines := strings.Split(user, "\n")
	if len(lines) < 2 {
		return ""
	}
	body := lines[1 : len(lines)-1]
	if strings.HasPrefix(user, "<conversation") {
		var items []map[string]any
		for _, l := range body {
			var t struct {
				Seq     int64  `json:"seq"`
				Name    string `json:"name"`
				Content string `json:"content"`
			}
			if json.Unmarshal([]byte(l), &t) != nil || t.Content == "" {
				continue
			}
			items = append(items, map[string]any{"text": t.Name + ": " + firstSentence(t.Content), "seqs": []int64{t.Seq}})
		}
		b, _ := json.Marshal(map[string]any{"observations": items})
		return string(b)
	}
	var items []map[string]any
	for _, l := range body {
		var o struct{ ID, Text string }
		if json.Unmarshal([]byte(l), &o) != nil {
			continue
		}
		first, _, _ := strings.Cut(o.Text, "\n")
		items = append(items, map[string]any{"text": strings.TrimPrefix(first, "- "), "sources": []string{o.ID}})
	}
	b, _ := json.Marshal(map[string]any{"reflection": items})
	return string(b)
}

func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".!?"); i > 0 && i < 160 {
		return s[:i+1]
	}
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}
