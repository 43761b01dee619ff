package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestChooseTarget: --db beats $MNEMO_DB, which beats the data directory
// (--dir, $MNEMO_DIR, the default); a value that is not a Postgres URL, and
// --db or $MNEMO_DB with an explicit --dir, are usage errors naming the
// flag or variable and never the password.
func TestChooseTarget(t *testing.T) {
	const (
		pg    = "postgres://mnemo:s3cret-pw@db.example:5432/mem?sslmode=disable"
		pgEnv = "postgresql://env:env-pw@other.example/mem"
	)
	for _, tc := range []struct {
		name             string
		dir, db          string
		env              map[string]string
		wantDir, wantDSN string
		wantErr          []string // substrings of the error; nil: no error
	}{
		{name: "default", wantDir: engine.DefaultDir},
		{name: "MNEMO_DIR", env: map[string]string{"MNEMO_DIR": "/e"}, wantDir: "/e"},
		{name: "--dir beats MNEMO_DIR", dir: "/f", env: map[string]string{"MNEMO_DIR": "/e"}, wantDir: "/f"},
		{name: "--db", db: pg, wantDSN: pg},
		{name: "postgresql scheme", db: pgEnv, wantDSN: pgEnv},
		{name: "MNEMO_DB", env: map[string]string{"MNEMO_DB": pgEnv}, wantDSN: pgEnv},
		{name: "MNEMO_DB beats MNEMO_DIR", env: map[string]string{"MNEMO_DB": pgEnv, "MNEMO_DIR": "/e"}, wantDSN: pgEnv},
		{name: "--db beats MNEMO_DB", db: pg, env: map[string]string{"MNEMO_DB": pgEnv}, wantDSN: pg},
		{name: "--db beats MNEMO_DIR", db: pg, env: map[string]string{"MNEMO_DIR": "/e"}, wantDSN: pg},
		{name: "--db with --dir", dir: "/f", db: pg, wantErr: []string{"--db", "--dir"}},
		{name: "MNEMO_DB with --dir", dir: "/f", env: map[string]string{"MNEMO_DB": pgEnv}, wantErr: []string{"$MNEMO_DB", "--dir"}},
		{name: "--db a path", db: "./mnemo-data", wantErr: []string{"--db", "Postgres URL"}},
		{name: "--db sqlite URL", db: "sqlite://x.db", wantErr: []string{"--db", "Postgres URL"}},
		{name: "--db mysql with password", db: "mysql://u:s3cret-pw@h/db", wantErr: []string{"--db"}},
		{name: "MNEMO_DB a path", env: map[string]string{"MNEMO_DB": "/var/lib/mnemo"}, wantErr: []string{"$MNEMO_DB"}},
		{name: "--db bad port", db: "postgres://u:s3cret-pw@h:notaport/db", wantErr: []string{"--db"}},
		{name: "--db bad escape", db: "postgres://u:s3cret-pw%zz@h/db", wantErr: []string{"--db"}},
		{name: "--db bad parameter", db: "postgres://u:s3cret-pw@h/db?sslmode=sometimes", wantErr: []string{"--db"}},
		{name: "--db bad tcp_user_timeout", db: "postgres://u:s3cret-pw@h/db?tcp_user_timeout=3s", wantErr: []string{"--db", "tcp_user_timeout", "milliseconds"}},
		{name: "MNEMO_DB negative tcp_user_timeout", env: map[string]string{"MNEMO_DB": "postgres://u:s3cret-pw@h/db?tcp_user_timeout=-1"}, wantErr: []string{"$MNEMO_DB", "tcp_user_timeout"}},
		{name: "--db bad pool parameter", db: "postgres://u:s3cret-pw@h/db?pool_max_conns=many", wantErr: []string{"--db", "pool_max_conns"}},
		{name: "--db bad pgx parameter", db: "postgres://u:s3cret-pw@h/db?statement_cache_capacity=x", wantErr: []string{"--db", "statement_cache_capacity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseTarget(tc.dir, tc.db, func(k string) string { return tc.env[k] })
			if tc.wantErr != nil {
				var te *targetError
				if !errors.As(err, &te) {
					t.Fatalf("err = %v, want a *targetError", err)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
				if strings.Contains(err.Error(), "s3cret-pw") || strings.Contains(err.Error(), "env-pw") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.dir != tc.wantDir || got.dsn != tc.wantDSN {
				t.Errorf("got dir %q dsn %q, want dir %q dsn %q", got.dir, got.dsn, tc.wantDir, tc.wantDSN)
			}
		})
	}
}

// TestStoreChoiceUsage: through the command line, a bad store choice exits
// 2 with a message naming the flag, before any command runs, and never
// prints the password.
func TestStoreChoiceUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--db", "mysql://u:s3cret-pw@h/db", "threads"}, nil, "--db"},
		{[]string{"--db", dir, "ingest", "x.jsonl"}, nil, "--db"},
		{[]string{"--dir", dir, "--db", "postgres://u:s3cret-pw@h/db", "search", "--resource", "r", "q"}, nil, "--dir"},
		{[]string{"--dir", dir, "context", "--thread", "t"}, map[string]string{"MNEMO_DB": "postgres://u:s3cret-pw@h/db"}, "$MNEMO_DB"},
		{[]string{"serve"}, map[string]string{"MNEMO_DB": "file:s3cret-pw"}, "$MNEMO_DB"},
	} {
		code, stdout, stderr := run(t, tc.env, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr+stdout, "s3cret-pw") {
			t.Errorf("%v: the output shows the password: %q", tc.args, stderr)
		}
	}
}

// TestRedactDSN: messages print a DSN with its password, in the user part
// or as a parameter, replaced; scrubDSN removes it from any text.
func TestRedactDSN(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u:pw%2Fx@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u@h/db?password=pw-param&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable"},
		{"postgres://h/db", "postgres://h/db"},
	} {
		if got := redactDSN(tc.dsn); got != tc.want {
			t.Errorf("redactDSN(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
	dsn := "postgres://u:pw%2Fsecret@h/db"
	msg := scrubDSN("failed to connect to "+dsn+" (password pw/secret, escaped pw%2Fsecret)", dsn)
	if strings.Contains(msg, "secret") {
		t.Errorf("scrubDSN left the password: %q", msg)
	}
}
