package main

import (
	"strings"
	"testing"
)

// TestHelp: help goes to standard output with exit 0 (mnemo help, mnemo
// help COMMAND, COMMAND -h, --help), flags are spelled --flag, wm get -h
// lists only get's flags; a usage error goes to standard error with exit 2.
func TestHelp(t *testing.T) {
	cases := []struct {
		args      []string
		want, not []string
		code      int
		toStdout  bool
	}{
		{[]string{"help"}, []string{"commands:", "serve", "mcp", "version", "--dir DIR"}, nil, 0, true},
		{[]string{"--help"}, []string{"commands:"}, nil, 0, true},
		{[]string{"help", "serve"}, []string{"--listen", "--tokens", "--config", "127.0.0.1:7077"}, []string{"\n  -listen"}, 0, true},
		{[]string{"serve", "-h"}, []string{"--listen"}, nil, 0, true},
		{[]string{"wm", "get", "-h"}, []string{"--thread", "--resource", "--json"}, []string{"--limit", "--schema", "--markdown"}, 0, true},
		{[]string{"wm", "set", "--help"}, []string{"--schema", "--no-validate"}, []string{"--limit"}, 0, true},
		{[]string{"help", "nope"}, []string{"unknown command"}, nil, 2, false},
		{[]string{"serve", "--bogus"}, []string{"flag provided but not defined", "--listen"}, nil, 2, false},
		{[]string{"version"}, []string{"mnemo ", "go1."}, nil, 0, true},
		{[]string{"--version"}, []string{"mnemo ", "go1."}, nil, 0, true},
	}
	for _, c := range cases {
		code, out, errOut := run(t, nil, c.args...)
		got, other := out, errOut
		if !c.toStdout {
			got, other = errOut, out
		}
		if code != c.code || other != "" {
			t.Errorf("mnemo %v: exit %d (want %d); the other stream has %q", c.args, code, c.code, other)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("mnemo %v: output lacks %q:\n%s", c.args, w, got)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("mnemo %v: output has %q:\n%s", c.args, w, got)
			}
		}
	}
}
