package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDatesReachThePrompt: with a resource's time zone configured, the
// observer reads every turn's time in that zone, observations record and
// render their date span, recall markers state their zone, memctx records
// it, and replay reproduces the prompt with the recorded zone after the
// configuration changed (issue 19 item 6). Before, the observer's request
// had no dates and markers were UTC dates without a zone.
func TestDatesReachThePrompt(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		paris, err := time.LoadLocation("Europe/Paris")
		if err != nil {
			t.Skipf("no tzdata on this machine: %v", err)
		}
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		st := be.NewStore(t)
		cfg := st.Config(engine.Config{RecentN: 2,
			ResourceTimeZone: func(r string) *time.Location {
				if r == "ana" {
					return paris
				}
				return nil
			},
			Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv)}})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// 22:30 UTC on 7 May is 00:30 on 8 May in Paris: "yesterday" is the 7th.
		t0 := time.Date(2023, 5, 7, 22, 30, 0, 0, time.UTC)
		var msgs []engine.Message
		for i, s := range []string{"I missed the walrus show yesterday", "sorry to hear", "book the next one", "done", "thanks", "bye"} {
			msgs = append(msgs, engine.Message{Role: []string{engine.RoleUser, engine.RoleAssistant}[i%2], Content: s, CreatedAt: t0.Add(time.Duration(i) * time.Hour)})
		}
		for _, r := range []string{"ana", "bob"} {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + r, ResourceID: r, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := e.Observe(ctx, "t-ana", observe.Options{Force: true, NoReflect: true})
		if err != nil || len(res.Observations) == 0 {
			t.Fatalf("observe: %v, %+v", err, res)
		}
		req, _ := srv.LastChat()
		if _, err := e.Observe(ctx, "t-bob", observe.Options{Force: true, NoReflect: true}); err != nil {
			t.Fatal(err)
		}
		user := req.Messages[len(req.Messages)-1].Content
		if !strings.HasPrefix(user, `<conversation time_zone="Europe/Paris">`) || !strings.Contains(user, `"seq":1,"time":"2023-05-08T00:30:00+02:00"`) {
			t.Fatalf("observer request lacks the zone or the turn's time:\n%s", user)
		}
		o := res.Observations[0]
		last := t0.Add(time.Duration(o.ToSeq-1) * time.Hour)
		if !o.FromTime.Equal(t0) || !o.ToTime.Equal(last) {
			t.Fatalf("observation span %v – %v, want %v – %v", o.FromTime, o.ToTime, t0, last)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		load := func(e *engine.Engine, run, thread string) *engine.Context {
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, Query: "walrus show",
				Recall: &recall.Options{TopK: 1, Scope: recall.ScopeThread, Mode: recall.ModeLexical}})
			if err != nil {
				t.Fatal(err)
			}
			checkRendered(t, c)
			return c
		}
		c := load(e, "run-ana", "t-ana")
		if want := fmt.Sprintf(`dates="2023-05-08 00:30 Europe/Paris – %s"`, last.In(paris).Format("2006-01-02 15:04")+" Europe/Paris"); !strings.Contains(c.System, want) {
			t.Fatalf("system part lacks %s:\n%s", want, c.System)
		}
		if c.MemCtx.TimeZone != "Europe/Paris" {
			t.Fatalf("memctx.timeZone = %q", c.MemCtx.TimeZone)
		}
		if len(c.MemCtx.Recalled) == 0 || !strings.HasPrefix(c.Messages[0].Content, "[recalled · thread t-ana · seq 1 · 2023-05-08 00:30 Europe/Paris]") {
			t.Fatalf("recalled marker without the zone: %q", c.Messages[0].Content)
		}
		cb := load(e, "run-bob", "t-bob")
		if cb.MemCtx.TimeZone != "UTC" || len(cb.Messages) == 0 || !strings.HasPrefix(cb.Messages[0].Content, "[recalled · thread t-bob · seq 1 · 2023-05-07 22:30 UTC]") {
			t.Fatalf("default zone: memctx %q, first message %q", cb.MemCtx.TimeZone, cb.Messages[0].Content)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		// Reopened without any zone: replay renders in the recorded one.
		cfg.ResourceTimeZone = nil
		e2, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e2.Close()
		rp, err := e2.Replay(ctx, "run-ana", engine.ReplayOptions{})
		if err != nil {
			t.Fatalf("replay after the zone changed: %v", err)
		}
		if rp.Original.PromptHash != c.PromptHash {
			t.Fatalf("replayed hash %s, recorded %s", rp.Original.PromptHash, c.PromptHash)
		}
	})
}
