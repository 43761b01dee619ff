package uselite_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall/uselite"
)

func TestOpen(t *testing.T) {
	t.Run("ErrNotInstalled", func(t *testing.T) {
		for _, dir := range []string{"", filepath.Join(t.TempDir(), "use-lite")} {
			_, err := uselite.Open(uselite.Config{Dir: dir})
			if !errors.Is(err, uselite.ErrNotInstalled) {
				t.Fatalf("Open(%q) err=%v, want ErrNotInstalled", dir, err)
			}
			if !strings.Contains(err.Error(), "mnemo models fetch use-lite") {
				t.Fatalf("error %q does not name the fetch command", err)
			}
		}
	})
	t.Run("ErrNotInstalledMissingShard", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, uselite.VocabFile, `[["<unk>",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["a",-1]]`)
		writeFile(t, dir, uselite.ModelFile, `{"weightsManifest":[{"paths":["group1-shard1of1"],"weights":[]}]}`)
		if _, err := uselite.Open(uselite.Config{Dir: dir}); !errors.Is(err, uselite.ErrNotInstalled) {
			t.Fatalf("err=%v, want ErrNotInstalled", err)
		}
	})
	t.Run("ErrBadModel", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, uselite.VocabFile, `[["<unk>",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["a",-1]]`)
		writeFile(t, dir, uselite.ModelFile, `{"weightsManifest":[{"paths":["s1"],"weights":[{"name":"module/Embeddings_en","shape":[1],"dtype":"float32"}]}]}`)
		writeFile(t, dir, "s1", "\x00\x00\x80\x3f")
		_, err := uselite.Open(uselite.Config{Dir: dir})
		if !errors.Is(err, uselite.ErrBadModel) {
			t.Fatalf("err=%v, want ErrBadModel", err)
		}
		writeFile(t, dir, uselite.VocabFile, `{"not":"a list"}`)
		if _, err := uselite.Open(uselite.Config{Dir: dir}); !errors.Is(err, uselite.ErrBadModel) {
			t.Fatalf("bad vocab: err=%v, want ErrBadModel", err)
		}
	})
}

func writeFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
