package engine_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/models"
)

// realModelsDir is the models directory the test run found ($MNEMO_MODELS or
// the user cache dir), before TestMain hides it.
var realModelsDir string

// TestMain points $MNEMO_MODELS at an empty directory, so engines opened with
// the default embedder use hash-384 whatever this machine has installed: the
// tests' figures must not depend on a cache. TestDefaultEmbedder restores the
// real directory to check the use-lite default.
//
// Temporary files go to a private directory (enginetest.PrivateTempDir):
// what a test leaves behind fails the package. Helper processes killed by
// the crash and lock tests inherit $TMPDIR from childEnv and so leave their
// files inside the parent test's own temporary directory.
func TestMain(m *testing.M) {
	tmpDone := enginetest.PrivateTempDir()
	realModelsDir, _ = models.Dir(nil)
	empty, err := os.MkdirTemp("", "mnemo-no-models-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(models.EnvDir, empty)
	code := m.Run()
	os.RemoveAll(empty)
	if err := tmpDone(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// childEnv is the environment of a helper process: this one's, plus extra,
// with $TMPDIR inside the test's temporary directory, removed with it even
// when the helper is killed.
func childEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	tmp, err := os.MkdirTemp(t.TempDir(), "child-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	return append(append(os.Environ(), "TMPDIR="+tmp), extra...)
}
