package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestAppendIDTwiceInRequest: one request giving a message id twice with
// other content or metadata is a *ValidationError on the second's id
// (ErrDuplicateID), not ErrConflict (which says the id is stored), and
// nothing is stored; the same message twice is stored once.
func TestAppendIDTwiceInRequest(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	msg := func(id, content string, md map[string]any) engine.Message {
		return engine.Message{ID: id, Role: engine.RoleUser, Content: content, Metadata: md}
	}
	for _, c := range []struct {
		name string
		msgs []engine.Message
		want string
	}{
		{"Content", []engine.Message{msg("dupe2", "x", nil), msg("dupe2", "y", nil)},
			`engine: invalid messages[1].id: "dupe2" is given twice in the request, as messages[0].id with other content; give each message its own id`},
		{"Metadata", []engine.Message{msg("a", "x", nil), msg("md", "x", map[string]any{"k": 1}), msg("md", "x", map[string]any{"k": 2})},
			`engine: invalid messages[2].id: "md" is given twice in the request, as messages[1].id with other metadata; give each message its own id`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + c.name, ResourceID: "r", Messages: c.msgs})
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, engine.ErrDuplicateID) || !errors.Is(err, engine.ErrInvalidInput) || errors.Is(err, engine.ErrConflict) {
				t.Fatalf("err = %v, want a *ValidationError matching ErrDuplicateID, not ErrConflict", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("err = %q, want %q", got, c.want)
			}
			if _, err := e.GetThread(ctx, "t-"+c.name); !errors.Is(err, engine.ErrThreadNotFound) {
				t.Errorf("GetThread after the refusal: %v, want ErrThreadNotFound (nothing stored)", err)
			}
		})
	}
	t.Run("SameMessageTwice", func(t *testing.T) {
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-same", ResourceID: "r", Messages: []engine.Message{msg("s", "x", nil), msg("s", "x", nil)}})
		if err != nil || res.Stored != 1 || res.Duplicates != 1 || res.Seqs[0] != res.Seqs[1] {
			t.Fatalf("%+v, %v; want stored once, one duplicate of the same seq", res, err)
		}
	})
	if strings.Contains(engine.ErrDuplicateID.Error(), "stored") {
		t.Errorf("ErrDuplicateID %q says stored", engine.ErrDuplicateID)
	}
}
