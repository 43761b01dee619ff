package observe_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// fakeModel is the shared fake OpenAI server (openaitest) with
// a swappable answer function: every request is counted and kept, and
// checked the way the real API would check it.
type fakeModel struct {
	srv    *openaitest.Server
	url    string // base URL, ".../v1"
	mu     sync.Mutex
	answer func(req openai.ChatCompletionRequest) (status int, content string, delay time.Duration)
}

func newFakeModel(t *testing.T, answer func(req openai.ChatCompletionRequest) (int, string, time.Duration)) *fakeModel {
	t.Helper()
	f := &fakeModel{answer: answer}
	f.srv = openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		f.mu.Lock()
		answer := f.answer
		f.mu.Unlock()
		status, content, delay := answer(req)
		if delay > 0 {
			// Delays that must honour the client's deadline are enqueued
			// with openaitest.Reply.WithDelay instead.
			time.Sleep(delay)
		}
		if status != http.StatusOK {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: status, Message: content}
		}
		return openaitest.Text(content).Response, nil
	}))
	f.url = f.srv.URL
	return f
}

func (f *fakeModel) count() int64 { return int64(f.srv.Count(openaitest.PathChat)) }

func (f *fakeModel) setAnswer(a func(req openai.ChatCompletionRequest) (int, string, time.Duration)) {
	f.mu.Lock()
	f.answer = a
	f.mu.Unlock()
}

func (f *fakeModel) last() openai.ChatCompletionRequest {
	req, _ := f.srv.LastChat()
	return req
}

func (f *fakeModel) model(t *testing.T) *observe.OpenAIModel {
	t.Helper()
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: f.url, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond, Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// text answers 200 with content.
func text(content string) func(openai.ChatCompletionRequest) (int, string, time.Duration) {
	return func(openai.ChatCompletionRequest) (int, string, time.Duration) { return 200, content, 0 }
}

// memSource is an in-memory Source.
type memSource struct {
	mu    sync.Mutex
	turns map[string][]observe.Turn
}

func (s *memSource) Messages(_ context.Context, threadID string, from, to int64) ([]observe.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []observe.Turn
	for _, t := range s.turns[threadID] {
		if t.Seq >= from && t.Seq <= to {
			out = append(out, t)
		}
	}
	return out, nil
}

// add appends turns to thread, assigning seqs; each turn costs tokens.
func (s *memSource) add(thread string, tokens int, turns ...observe.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns == nil {
		s.turns = map[string][]observe.Turn{}
	}
	for _, t := range turns {
		t.ThreadID, t.ResourceID = thread, "res-"+thread
		t.Seq = int64(len(s.turns[thread]) + 1)
		t.ID = fmt.Sprintf("%s-%d", thread, t.Seq)
		if t.Tokens == 0 {
			t.Tokens = tokens
		}
		s.turns[thread] = append(s.turns[thread], t)
	}
}

func user(s string) observe.Turn      { return observe.Turn{Role: "user", Content: s} }
func assistant(s string) observe.Turn { return observe.Turn{Role: "assistant", Content: s} }
func call(id, name string) observe.Turn {
	return observe.Turn{Role: "assistant", ToolCalls: []observe.ToolCall{{ID: id, Name: name, Arguments: `{}`}}}
}
func result(id, s string) observe.Turn { return observe.Turn{Role: "tool", ToolCallID: id, Content: s} }

// env is one open database with an observer over it.
type env struct {
	path string
	db   *sql.DB
	j    *journal.Journal
	obs  *observe.Observer
	src  *memSource
}

// openEnv opens the database at path (b.place) with an observer over it;
// opening one path again gives another pool on the same database (as
// another process's).
func (b backend) openEnv(t *testing.T, path string, src *memSource, m observe.Model, cfg observe.Config) *env {
	t.Helper()
	db, err := b.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.CloseDB(db) }) // waits for background prepares (storetest.Backend.OpenDB)
	j := journal.New(db, nil)
	cfg.DB, cfg.Journal, cfg.Source, cfg.Model = db, j, src, m
	o, err := observe.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{path: path, db: db, j: j, obs: o, src: src}
}

func list(t *testing.T, e *env, thread string, all bool) []observe.Observation {
	t.Helper()
	obs, err := observe.List(context.Background(), e.db, observe.Filter{ThreadID: thread, All: all})
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func watermark(t *testing.T, e *env, thread string) int64 {
	t.Helper()
	wm, err := observe.Watermark(context.Background(), e.db, thread)
	if err != nil {
		t.Fatal(err)
	}
	return wm
}
