package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// List returns the models installed in dir, sorted by name. A directory
// that does not exist holds no models (an empty list, no error). Staging
// leftovers and directories without a ManifestFile are ignored.
func List(dir string) ([]Installed, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("models: list %s: %w", dir, err)
	}
	var out []Installed
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		in, err := readInstalled(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// IsInstalled reports whether model name is installed in dir with every
// required file of its catalog entry.
func IsInstalled(dir, name string) bool {
	spec, err := Lookup(name)
	if err != nil {
		return false
	}
	in, err := readInstalled(Path(dir, name))
	return err == nil && in.Integrity == spec.Integrity && hasAll(in.Dir, spec.Required)
}

// readInstalled reads the ManifestFile of a model directory.
func readInstalled(modelDir string) (Installed, error) {
	b, err := os.ReadFile(filepath.Join(modelDir, ManifestFile))
	if err != nil {
		return Installed{}, err
	}
	var in Installed
	if err := json.Unmarshal(b, &in); err != nil {
		return Installed{}, fmt.Errorf("models: %s: %w", filepath.Join(modelDir, ManifestFile), err)
	}
	in.Dir = modelDir
	return in, nil
}
