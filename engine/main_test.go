package engine_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mnemo-go/mnemo/internal/models"
)

// realModelsDir is the models directory the test run found ($MNEMO_MODELS or
// the user cache dir), before TestMain hides it.
var realModelsDir string

// TestMain points $MNEMO_MODELS at an empty directory, so engines opened with
// the default embedder use hash-384 whatever this machine has installed: the
// tests' figures must not depend on a cache. TestDefaultEmbedder restores the
// real directory to check the use-lite default.
func TestMain(m *testing.M) {
	realModelsDir, _ = models.Dir(nil)
	empty, err := os.MkdirTemp("", "mnemo-no-models-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(models.EnvDir, empty)
	code := m.Run()
	os.RemoveAll(empty)
	os.Exit(code)
}
