package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// malformedIDs are ids Append refuses (ValidID): each read refuses them too.
var malformedIDs = map[string]string{
	"Empty":      "",
	"NUL":        "t\x00",
	"BadUTF8":    "t\xff",
	"TooLong":    strings.Repeat("a", 129),
	"Space":      "a b",
	"NonASCII":   "thréad",
	"Slash":      "a/b",
	"OnlyNUL":    "\x00",
	"LongNUL128": strings.Repeat("a", 127) + "\x00",
}

// TestGetThreadMalformedID: GetThread refuses an id Append would refuse
// with a *ValidationError on threadId, as Append does (it answered
// ErrThreadNotFound, as for an id no thread has); a well-formed unknown id
// is still ErrThreadNotFound and a stored one is found.
func TestGetThreadMalformedID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		seedOne(t, e)
		for name, id := range malformedIDs {
			t.Run(name, func(t *testing.T) {
				_, err := e.GetThread(ctx, id)
				if ve := validation(t, err); ve.Field != "threadId" {
					t.Errorf("GetThread(%q): field %q, want threadId", id, ve.Field)
				}
				_, err = e.Append(ctx, engine.AppendRequest{ThreadID: id, ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "x"}}})
				if ve := validation(t, err); ve.Field != "threadId" {
					t.Errorf("Append(%q): field %q, want threadId", id, ve.Field)
				}
			})
		}
		if _, err := e.GetThread(ctx, "t-unknown"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("GetThread(unknown) = %v, want ErrThreadNotFound", err)
		}
		if th, err := e.GetThread(ctx, "t1"); err != nil || th.ID != "t1" {
			t.Errorf("GetThread(t1) = %+v, %v", th, err)
		}
	})
}

// TestMessagesByIDMalformedID: MessagesByID refuses a malformed id with a
// *ValidationError on ids[i] and a malformed resource on resourceId (it
// left them out, as ids not stored); well-formed unknown ids are still
// left out.
func TestMessagesByIDMalformedID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		seedOne(t, e)
		for name, id := range malformedIDs {
			t.Run(name, func(t *testing.T) {
				ms, err := e.MessagesByID(ctx, "", "m1", id)
				if ve := validation(t, err); ve.Field != "ids[1]" || ms != nil {
					t.Errorf("MessagesByID(m1, %q): field %q, messages %v; want ids[1], none", id, ve.Field, ms)
				}
				if id == "" {
					return // "" is every resource
				}
				_, err = e.MessagesByID(ctx, id, "m1")
				if ve := validation(t, err); ve.Field != "resourceId" {
					t.Errorf("MessagesByID(resource %q): field %q, want resourceId", id, ve.Field)
				}
			})
		}
		ms, err := e.MessagesByID(ctx, "r", "m-unknown", "m1")
		if err != nil || len(ms) != 1 || ms[0].ID != "m1" {
			t.Errorf("MessagesByID(r, m-unknown, m1) = %v, %v; want m1 alone", ms, err)
		}
	})
}

// seedOne stores message m1 in thread t1 of resource r.
func seedOne(t *testing.T, e *engine.Engine) {
	t.Helper()
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t1", ResourceID: "r",
		Messages: []engine.Message{{ID: "m1", Role: engine.RoleUser, Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
}

// validation returns err as a *ValidationError, failing t when it is not one.
func validation(t *testing.T, err error) *engine.ValidationError {
	t.Helper()
	var ve *engine.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *engine.ValidationError", err)
	}
	return ve
}
