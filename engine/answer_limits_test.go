package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAnswerBoundBelowContent: Open refuses a Limits.MaxAnswerBytes below
// Limits.MaxContentBytes (each as given, or its default), naming both and
// their values: under it a thread whose newest message is larger than the
// bound loaded no context at all (maxAnswerBytes 1000 with the default
// 256 KiB of content was accepted). A bound at the content bound opens.
func TestAnswerBoundBelowContent(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		limits engine.Limits
		want   string // the error; "" when Open succeeds
	}{
		{"BelowDefaultContent", engine.Limits{MaxAnswerBytes: 1000},
			"engine: invalid Limits.MaxAnswerBytes: must be at least Limits.MaxContentBytes (262144), the content one message may hold, or a thread whose newest message is larger loads no context; got 1000"},
		{"BelowContent", engine.Limits{MaxAnswerBytes: 1000, MaxContentBytes: 1001},
			"engine: invalid Limits.MaxAnswerBytes: must be at least Limits.MaxContentBytes (1001), the content one message may hold, or a thread whose newest message is larger loads no context; got 1000"},
		{"ContentOverDefaultAnswer", engine.Limits{MaxContentBytes: 32 << 20},
			"engine: invalid Limits.MaxAnswerBytes: must be at least Limits.MaxContentBytes (33554432), the content one message may hold, or a thread whose newest message is larger loads no context; got 16777216"},
		{"AtContent", engine.Limits{MaxAnswerBytes: 1000, MaxContentBytes: 1000}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Limits: tc.limits})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Open: %v, want none", err)
				}
				e.Close()
				return
			}
			if err == nil {
				e.Close()
			}
			var ve *engine.ValidationError
			if !errors.Is(err, engine.ErrAnswerBoundTooSmall) || !errors.Is(err, engine.ErrInvalidInput) || !errors.As(err, &ve) ||
				ve.Field != "Limits.MaxAnswerBytes" || err.Error() != tc.want {
				t.Fatalf("Open: %v\nwant %q (ErrAnswerBoundTooSmall)", err, tc.want)
			}
		})
	}
}
