package demodata

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/importer"
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

// Ingest writes the sample to a file in dir (removed afterwards) and
// imports it into e strictly (importer.Options{Strict: true}): a record the
// engine refuses stops the import with a *importer.RecordError.
func Ingest(ctx context.Context, e importer.Appender, dir string) (*importer.Report, error) {
	src := filepath.Join(dir, "demo-conversation.jsonl")
	if err := os.WriteFile(src, Conversation, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(src)
	return importer.Import(ctx, e, src, importer.Options{Format: importer.FormatJSONL, Strict: true})
}
