package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSalvageDamagedDigest: bytes of a message's stored digest are
// overwritten in mnemo.db (walk56 F7: 8 bytes flipped in place hit the
// digest column), the text it covers untouched. Salvage keeps the message,
// its text as it was, recomputes its digest and counts it Redigested, not
// Garbled nor lost; check then passes. Before, it was dropped and its seq
// recorded as lost ("1 message lost") though its text read whole. Bytes
// replaced by other hex digits (a digest still of the right shape) and by
// non-hex bytes are both the digest's damage.
func TestSalvageDamagedDigest(t *testing.T) {
	ctx := context.Background()
	for name, repl := range map[string][]byte{"hex": []byte("0123abcd"), "bytes": []byte("\x00\xff#!ZZ\x7f?")} {
		t.Run(name, func(t *testing.T) {
			dir, _ := dbFixture(t)
			path := filepath.Join(dir, engine.DatabaseFile)
			raw := openRaw(t, path)
			var digest, content string
			if err := raw.QueryRow(`SELECT digest, content FROM messages WHERE id = 'm5'`).Scan(&digest, &content); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			at := bytes.Index(b, []byte(digest))
			if at < 0 || bytes.Count(b, []byte(digest)) != 1 {
				t.Fatalf("m5's digest found %d times in %s", bytes.Count(b, []byte(digest)), path)
			}
			copy(b[at+20:], repl)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err := engine.Salvage(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}}, engine.SalvageOptions{})
			if err != nil {
				t.Fatalf("salvage: %v", err)
			}
			if len(rep.Lost) != 0 {
				t.Errorf("lost %+v, want none (m5's text reads whole)", rep.Lost)
			}
			var msgs *engine.SalvageTable
			for i := range rep.Tables {
				if rep.Tables[i].Name == "messages" {
					msgs = &rep.Tables[i]
				}
			}
			if msgs == nil || msgs.Redigested != 1 || msgs.Garbled != 0 || msgs.Kept != 40 {
				t.Fatalf("messages table %+v, want 40 kept, 1 redigested, none garbled", msgs)
			}
			if !strings.Contains(strings.Join(rep.Findings, "\n"), "message 6 of thread t: its digest is damaged, its text reads whole") {
				t.Errorf("findings %q do not say m5's digest alone was damaged", rep.Findings)
			}
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			got, err := e.MessagesByID(ctx, "r", "m5")
			if err != nil || len(got) != 1 || got[0].Content != content {
				t.Fatalf("m5 after the salvage: %v %+v, want its text %q", err, got, content)
			}
			if err := e.CheckWith(ctx, engine.CheckOptions{Full: true}); err != nil {
				t.Fatalf("check after the salvage: %v", err)
			}
		})
	}
}
