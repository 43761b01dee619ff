package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestIDErrorText: an id the engine refuses says, in its error's text,
// the form of the server's and the CLI's id refusals, `FIELD must be …;
// got …` (after "engine: "), where it said `engine: invalid FIELD: must
// be …; got …`; errors.Is still finds ErrInvalidInput and the precise
// error a search's carries, and the *ValidationError its parts.
func TestIDErrorText(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir()})
	for _, tc := range []struct {
		name  string
		call  func() error
		field string
		want  string
	}{
		{"message id", func() error {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{ID: "a b", Role: "user", Content: "hi"}}})
			return err
		}, "id", `engine: messages[0].id ` + engine.NewIDRule + `; got " " at byte 1`},
		{"thread", func() error {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "hi"}}})
			return err
		}, "threadId", `engine: threadId ` + engine.NewIDRule + `; got ".."`},
		{"search thread", func() error {
			_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", ThreadID: "a\xffb", Query: "hi"})
			return err
		}, "threadId", `engine: threadId ` + engine.IDRule + `; got 0xff at byte 1, which is not UTF-8`},
	} {
		err := tc.call()
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidInput) || ve.Field != tc.field || ve.Got == "" {
			t.Errorf("%s: %v (%#v); want a *ValidationError of %s with Got, ErrInvalidInput", tc.name, err, ve, tc.field)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
}
