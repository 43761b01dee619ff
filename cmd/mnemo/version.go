package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the module version of the binary ("v0.3.0" when installed
// with go install …@v0.3.0), else "devel" with the VCS revision it was
// built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "devel"
	case dirty:
		return "devel+" + rev + "-dirty"
	}
	return "devel+" + rev
}

// VersionCommand is `mnemo version`: print mnemo's version, Go version and
// platform. Like every command it embeds Main: the process environment and
// the global flags.
type VersionCommand struct{ *Main }

// Run is `mnemo version` (and `mnemo --version`).
func (c *VersionCommand) Run(_ context.Context, args []string) error {
	fs := c.flags("version", "")
	asJSON := fs.Bool("json", false, "print JSON: {version, go, os, arch}")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(versionInfo{version(), runtime.Version(), runtime.GOOS, runtime.GOARCH})
	}
	fmt.Fprintf(c.Stdout, "mnemo %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// versionInfo is `mnemo version --json`'s answer: the version (version()),
// the Go version the binary was built with ("go1.24.1") and the platform
// (runtime.GOOS, runtime.GOARCH).
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}
