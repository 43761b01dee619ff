package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestAppendTitle: a thread title holding invalid UTF-8 or NUL is refused
// naming title, as a message's text is, and one longer than 256 bytes is
// cut at a character. Both were stored as given, and a title of 100 "日"
// was cut inside a character: invalid UTF-8 in the thread row.
func TestAppendTitle(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	for name, title := range map[string]string{"NUL": "a\x00b", "InvalidUTF8": "caf\xe9"} {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + name, ResourceID: "r", Title: title, Messages: []engine.Message{user("", "hi")}})
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "title" || ve.Index != -1 {
			t.Errorf("%s title: %v, want a *ValidationError on title", name, err)
		}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-long", ResourceID: "r", Title: strings.Repeat("日", 100), Messages: []engine.Message{user("", "hi")}}); err != nil {
		t.Fatal(err)
	}
	th, err := e.GetThread(ctx, "t-long")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("日", 85) + "…"; th.Title != want || !utf8.ValidString(th.Title) {
		t.Errorf("title %q (valid UTF-8: %v), want %q", th.Title, utf8.ValidString(th.Title), want)
	}
}

// TestTitleFirstAppend: a thread's title is the one its creating append
// gave; a later append's title is ignored, also for a thread created
// without one (Thread.Title's doc said "as last set", AppendRequest.Title's
// "ignored afterwards").
func TestTitleFirstAppend(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	for id, titles := range map[string][2]string{"t-titled": {"first", "second"}, "t-untitled": {"", "late"}} {
		for i, title := range titles {
			req := engine.AppendRequest{ThreadID: id, Title: title, Messages: []engine.Message{user("", "hi")}}
			if i == 0 {
				req.ResourceID = "r"
			}
			if _, err := e.Append(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		th, err := e.GetThread(ctx, id)
		if err != nil || th.Title != titles[0] {
			t.Errorf("%s: title %q, %v; want %q, the creating append's", id, th.Title, err, titles[0])
		}
	}
}
