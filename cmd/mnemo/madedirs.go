package main

import (
	"os"
	"path/filepath"
)

// missingDirs lists dir and its ancestors that do not exist, deepest first:
// the ones MkdirAll(dir) creates.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// removeMade removes the directories missingDirs listed, deepest first,
// stopping at the first that is not empty (os.Remove refuses it).
func removeMade(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
