package uselite_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

func TestOpenDefault(t *testing.T) {
	env := func(dir string) func(string) string {
		return func(k string) string {
			if k == models.EnvDir {
				return dir
			}
			return ""
		}
	}
	t.Run("HashWhenAbsent", func(t *testing.T) {
		e, err := uselite.OpenDefault(env(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.ID(), recall.HashID; got != want {
			t.Fatalf("default embedder %q, want %q", got, want)
		}
	})
	t.Run("ErrBadModel", func(t *testing.T) {
		root := t.TempDir()
		dir := models.Path(root, uselite.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, uselite.ModelFile, "{not json")
		writeFile(t, dir, uselite.VocabFile, `[["<unk>",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["a",-1]]`)
		if e, err := uselite.OpenDefault(env(root)); !errors.Is(err, uselite.ErrBadModel) || e != nil {
			t.Fatalf("OpenDefault = %v, %v; want nil, ErrBadModel (a damaged install is not hidden)", e, err)
		}
	})
	t.Run("UseLiteWhenInstalled", func(t *testing.T) {
		dir := modelDir(t) // skips when the weights are absent
		e, err := uselite.OpenDefault(env(filepath.Dir(dir)))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.ID(), uselite.ID; got != want {
			t.Fatalf("default embedder %q, want %q", got, want)
		}
	})
}
