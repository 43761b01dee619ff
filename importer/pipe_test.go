package importer_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestImportPipe: a path that is a pipe (what `mnemo ingest <(cmd)` and
// /dev/stdin give) is read once, so format detection does not eat its
// head: every record is imported. Before, detection opened the path,
// read its first 4 KiB (bufio's buffer) and closed it, and the import
// opened it again and read the rest: of 3,000 records 40 were lost, the
// line cut in two skipped, and Import returned no error.
func TestImportPipe(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to name a pipe by (%v)", err)
	}
	var body strings.Builder
	const n = 3000
	for i := range n {
		fmt.Fprintf(&body, `{"thread":"t%d","resource":"r","role":"user","content":"message %d of a conversation read from a pipe"}`+"\n", i%7, i)
	}
	for _, format := range []string{importer.FormatAuto, importer.FormatJSONL} {
		t.Run(format, func(t *testing.T) {
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			written := make(chan error, 1)
			go func() {
				_, err := wr.WriteString(body.String())
				wr.Close()
				written <- err
			}()
			e := enginetest.MustOpen(t, engine.Config{})
			path := fmt.Sprintf("/proc/self/fd/%d", rd.Fd())
			rep, err := importer.Import(context.Background(), e, path, importer.Options{Format: format, Name: "pipe"})
			if err != nil || rep.Messages != n || rep.Skipped != 0 || rep.Format != importer.FormatJSONL {
				t.Fatalf("import of a pipe (%s): %+v, %v; want %d messages, none skipped", format, rep, err, n)
			}
			if err := <-written; err != nil {
				t.Fatalf("writing the pipe: %v", err)
			}
		})
	}
}
