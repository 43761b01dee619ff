package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// TestObservationsValidation: Observations refuses a filter naming neither
// a thread nor a resource with a *ValidationError on "filter" (it was
// observe.ErrConfig, a configuration error) and a malformed thread or
// resource id with one on its field (a NUL thread id answered nothing);
// each matches recall.ErrInvalidFilter and engine.ErrInvalidInput. A
// well-formed unknown thread answers no observations and no error.
func TestObservationsValidation(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		cases := []struct {
			name  string
			f     observe.Filter
			field string
		}{
			{"NoThreadNorResource", observe.Filter{All: true}, "filter"},
			{"NULThread", observe.Filter{ThreadID: "t\x00"}, "filter.threadId"},
			{"BadUTF8Thread", observe.Filter{ThreadID: "t\xff"}, "filter.threadId"},
			{"NULThreadWithResource", observe.Filter{ThreadID: "\x00", ResourceID: "r"}, "filter.threadId"},
			{"NULResource", observe.Filter{ResourceID: "r\x00"}, "filter.resourceId"},
			// Malformed ids in IDs were looked up (no row matched).
			{"NULID", observe.Filter{ThreadID: "t", IDs: []string{"obs-1", "o\x00"}}, "filter.ids[1]"},
			{"EmptyID", observe.Filter{ResourceID: "r", All: true, IDs: []string{""}}, "filter.ids[0]"},
			{"LongID", observe.Filter{ThreadID: "t", IDs: []string{strings.Repeat("o", 129)}}, "filter.ids[0]"},
			{"SpaceID", observe.Filter{ThreadID: "t", IDs: []string{"obs 1"}}, "filter.ids[0]"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				obs, err := e.Observations(ctx, c.f)
				var ve *engine.ValidationError
				if !errors.As(err, &ve) || ve.Field != c.field {
					t.Fatalf("Observations(%+v) = %v, %v; want a *ValidationError on %s", c.f, obs, err, c.field)
				}
				if !errors.Is(err, recall.ErrInvalidFilter) || !errors.Is(err, engine.ErrInvalidInput) || errors.Is(err, observe.ErrConfig) {
					t.Errorf("err %v: want ErrInvalidFilter and ErrInvalidInput, not observe.ErrConfig", err)
				}
			})
		}
		if obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t-unknown"}); err != nil || len(obs) != 0 {
			t.Errorf("Observations(unknown thread) = %v, %v; want none, nil", obs, err)
		}
		if obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t-unknown", IDs: []string{"obs-unknown:1"}}); err != nil || len(obs) != 0 {
			t.Errorf("Observations(unknown ids) = %v, %v; want none, nil", obs, err)
		}
	})
}
