package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSalvageTableRedigested: a message whose stored digest alone was
// overwritten in mnemo.db is kept with its digest recomputed, and the
// table salvage prints counts it in its redigested column (it was only
// in --json: the table showed the message as kept, nothing else).
func TestSalvageTableRedigested(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()[:40]...))
	path := filepath.Join(dir, engine.DatabaseFile)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var digest string
	err = db.QueryRow(`SELECT digest FROM messages WHERE thread_id = 't' AND seq = 6`).Scan(&digest)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(digest))
	if at < 0 || bytes.Count(b, []byte(digest)) != 1 {
		t.Fatalf("the digest of seq 6 found %d times in %s", bytes.Count(b, []byte(digest)), path)
	}
	copy(b[at+20:], "0123abcd")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	if code != 0 {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	if !regexp.MustCompile(`(?m)^table +kept +unreadable rowids +invalid +garbled +redigested +orphans dropped$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^messages +40 +- +0 +0 +1 +0$`).MatchString(out) {
		t.Fatalf("salvage's table lacks the redigested message (1):\n%s", out)
	}
	if strings.Contains(out, "lost") && strings.Contains(out, "seqs 6") {
		t.Errorf("salvage lost seq 6, whose text reads whole:\n%s", out)
	}
}
