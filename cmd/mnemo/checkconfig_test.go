package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestRecoveryWithDamagedConfig: a stored mnemo.json that cannot be read
// or applied (truncated, a member of the wrong type, an unknown member, a
// value breaking a rule, a symbolic link to nothing) no longer stops the
// recovery commands. mnemo check runs with the defaults, reports the
// damage as a finding naming the file and the member or place at fault
// (--json: kind and action "config"), says the rest passed, exits 1;
// mnemo salvage warns and runs. Any other command still refuses, saying
// what to do. Before, check and salvage exited 1 with the JSON error
// alone, and a dangling symbolic link was read as no configuration by
// every command, mnemo serve included.
func TestRecoveryWithDamagedConfig(t *testing.T) {
	for _, tc := range []struct {
		name, body, link, want string
	}{
		{"Truncated", `{"recentN": 5, "recall": {"topK":`, "", "mnemo.json: the JSON ends before its value does"},
		{"WrongType", `{"recentN": "five"}`, "", `mnemo.json: "recentN" must be a JSON number, not a string`},
		{"UnknownMember", `{"recal": {"topK": 3}}`, "", `mnemo.json: unknown field "recal" (did you mean "recall"?)`},
		{"RuleBroken", `{"recall": {"topK": -3}}`, "", "mnemo.json: recall.topK must be within [0, 1000], got -3"},
		{"DanglingSymlink", "", "gone.json", "mnemo.json is a symbolic link to "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, stderr)
			}
			path := filepath.Join(dir, StoredConfigFile)
			var err error
			if tc.link != "" {
				err = os.Symlink(filepath.Join(t.TempDir(), tc.link), path)
			} else {
				err = os.WriteFile(path, []byte(tc.body), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkReportsConfig(t, dir, tc.want)
			code, stdout, stderr := run(t, nil, "--dir", dir, "salvage")
			if code != 0 || !strings.HasPrefix(stdout, "nothing to salvage") ||
				!strings.HasPrefix(stderr, "mnemo salvage: warning: the stored configuration cannot be used: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("salvage: exit %d, stdout %q, stderr %q; want exit 0, nothing to salvage, a warning naming %q", code, stdout, stderr, tc.want)
			}
			for _, args := range [][]string{{"threads"}, {"serve", "--listen", "127.0.0.1:0"}} {
				code, stderr = runFor(t, 10*time.Second, append([]string{"--dir", dir}, args...)...)
				if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "What to do: mnemo.json is the configuration") {
					t.Errorf("%s: exit %d, stderr %q; want 1 naming %q and what to do", args[0], code, stderr, tc.want)
				}
			}
		})
	}
}

// checkReportsConfig runs mnemo check on dir, with and without --json,
// and checks it reports the stored configuration's damage (want) as its
// one finding, with what to do, the rest having passed.
func checkReportsConfig(t *testing.T, dir, want string) {
	t.Helper()
	code, stdout, stderr := run(t, nil, "--dir", dir, "check")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "mnemo check: the stored configuration cannot be used:\n  "+dir) ||
		!strings.Contains(stderr, want) || !strings.Contains(stderr, "What to do: mnemo.json is the configuration") ||
		!strings.Contains(stderr, "Apart from it, the check passed: the database passes SQLite's quick_check") ||
		!strings.HasSuffix(stderr, "mnemo check: 1 problem (listed above)\n") {
		t.Errorf("check: exit %d, stdout %q, stderr %q; want exit 1, the damage %q as the one problem, what to do, the rest passed", code, stdout, stderr, want)
	}
	code, stdout, _ = run(t, nil, "--dir", dir, "check", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("check --json: %v: %q", err, stdout)
	}
	if code != 1 || rep.OK || rep.Action != "config" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "config" || !strings.Contains(rep.Problems[0].Detail, want) {
		t.Errorf("check --json: exit %d, %+v; want exit 1, ok false, action config, one problem of kind config naming %q", code, rep, want)
	}
}

// runFor runs args as run does, cancelled after d (a serve that started),
// and returns the exit code and stderr.
func runFor(t *testing.T, d time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var stderr enginetest.SyncBuffer
	getenv := func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}
	m := &Main{Stdin: strings.NewReader(""), Stdout: &enginetest.SyncBuffer{}, Stderr: &stderr, Getenv: getenv}
	return m.Run(ctx, args), stderr.String()
}

// TestCheckReportConfigAction: with the stored configuration's damage
// beside findings in the store, check --json lists it first and the
// store's action wins (reindex, restore); alone, or beside what the check
// repaired itself, the action is "config".
func TestCheckReportConfigAction(t *testing.T) {
	damage := &storedConfigError{Dir: "D", Err: errors.New("D/mnemo.json: unknown field \"recal\"")}
	for _, tc := range []struct {
		name  string
		found *engine.CheckError
		want  string
	}{
		{"Alone", nil, "config"},
		{"Repaired", &engine.CheckError{Problems: []string{"snapshot"}, Snapshots: []string{"s1"}}, "config"},
		{"Reindex", &engine.CheckError{Problems: []string{"m1 is not in the lexical index"}}, "reindex"},
		{"Restore", &engine.CheckError{Database: []string{"page 3"}}, "restore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := (&checkResult{found: tc.found, config: damage}).report(false)
			if rep.OK || rep.Action != tc.want || len(rep.Problems) == 0 || rep.Problems[0].Kind != "config" {
				t.Errorf("report %+v; want ok false, action %s, the config problem first", rep, tc.want)
			}
		})
	}
}
