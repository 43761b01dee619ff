package importer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/recall"
)

// Import a JSONL file (one message per line) into an engine; importing it
// again stores nothing new.
func ExampleImport() {
	dir, err := os.MkdirTemp("", "mnemo-import-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "chat.jsonl")
	lines := `{"thread": "ana:trip", "resource": "ana", "role": "user", "content": "Book the night train to Porto."}
{"thread": "ana:trip", "resource": "ana", "role": "assistant", "content": "Booked: seat 43, reference PX7-QM2."}
`
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: filepath.Join(dir, "data"), Embedder: recall.HashEmbedder{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	for range 2 {
		rep, err := importer.Import(ctx, e, file, importer.Options{Format: importer.FormatJSONL})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d threads, %d messages stored, %d already stored\n", rep.Threads, rep.Messages, rep.Duplicates)
	}
	// Output:
	// 1 threads, 2 messages stored, 0 already stored
	// 1 threads, 0 messages stored, 2 already stored
}
