// Package demodata ships mnemo's sample conversation, used by `mnemo demo`
// and the offline mode of examples/replay, and usable by any program that
// wants a small memory to try calls on: a trip booked with tool calls in
// March, a gardening chat, a work session (with an API key that redaction
// removes) and today's thread, whose questions are answered by turns of the
// earlier sessions.
//
// # Imports
//
// It may import importer (Ingest imports the sample), hence engine; nothing
// below the engine imports it.
//
// # Invariants
//
//   - Conversation is valid mnemo JSONL (package importer's format) with
//     explicit message ids, so ingesting it twice stores nothing new.
//   - The identifiers below name threads and a resource of Conversation.
//
// # Concurrency
//
// Conversation must not be modified. Ingest may run concurrently on
// distinct directories.
//
// # Errors
//
// Ingest returns the error of writing the spooled file, or importer.Import's.
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
