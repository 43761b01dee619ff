// Package demodata ships the sample conversation used by `mnemo demo` and
// the offline examples: a trip booked with tool calls in March, a gardening
// chat, a work session (with an API key that redaction removes) and today's
// thread, whose questions are answered by turns of the earlier sessions.
package demodata

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/importer"
)

// Conversation is the sample in mnemo's JSONL import format.
//
//go:embed conversation.jsonl
var Conversation []byte

// Identifiers in the sample.
const (
	Resource      = "ana"
	TodayThread   = "ana:today"
	TripThread    = "ana:trip-planning"
	TodayQuestion = "What was my booking reference for the night train to Porto, and which seat did I get?"
)

// Ingest writes the sample to a file in dir and imports it into e.
func Ingest(ctx context.Context, e importer.Appender, dir string) (*importer.Report, error) {
	src := filepath.Join(dir, "demo-conversation.jsonl")
	if err := os.WriteFile(src, Conversation, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(src)
	return importer.Import(ctx, e, src, importer.Options{Format: importer.FormatJSONL, Strict: true})
}
