package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWMByteOrderMark: a --schema file, and the FILE of a schema-mode wm
// set (with --schema or --no-validate) or of a template-mode one
// (--markdown: the mark was stored as the state's first character), that
// begins with a UTF-8 byte-order mark are refused naming the file and the mark (exit 1,
// nothing stored), as a --config file and a token file are. They failed
// as "invalid character 'ï' looking for beginning of value".
func TestWMByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	tmp := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	schema := write("schema.json", `{"type":"object"}`)
	bomSchema := write("bomschema.json", "\uFEFF"+`{"type":"object"}`)
	state := write("state.json", `{"city":"Lyon"}`)
	bomState := write("bomstate.json", "\uFEFF"+`{"city":"Lyon"}`)
	bomMarkdown := write("bomstate.md", "\uFEFF# Profile\n")
	const mark = ": the file begins with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one\n"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"Schema", []string{"--schema", bomSchema, state}, "mnemo wm set: invalid schema: " + bomSchema + mark},
		{"StateWithSchema", []string{"--schema", schema, bomState}, "mnemo wm set: " + bomState + mark},
		{"StateNoValidate", []string{"--no-validate", bomState}, "mnemo wm set: " + bomState + mark},
		{"StateMarkdown", []string{"--markdown", bomMarkdown}, "mnemo wm set: " + bomMarkdown + ": the file begins with a UTF-8 byte-order mark (EF BB BF), which would be stored as the state's first character: save it as UTF-8 without one\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "wm", "set", "--resource", "u1"}, c.args...)...)
			if code != 1 || out != "" || stderr != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit 1 and %q", code, out, stderr, c.want)
			}
		})
	}
	if code, out, _ := run(t, nil, "--dir", dir, "wm", "get", "--resource", "u1"); code != 0 || out != "resource:u1: no working memory stored\n" {
		t.Errorf("after the refusals: exit %d, %q; want nothing stored", code, out)
	}
}
