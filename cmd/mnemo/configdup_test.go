package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigRepeatedMember: a --config file naming a member twice in one
// object is refused naming its path, as a request body is; before, the
// last one was kept silently ({"recall":{"topK":5000,"topK":5}} read as 5).
func TestConfigRepeatedMember(t *testing.T) {
	for body, want := range map[string]string{
		`{"recall": {"topK": 5000, "topK": 5}}`:                       `"recall.topK" is given twice`,
		`{"recentN": 3, "recentN": 4}`:                                `"recentN" is given twice`,
		`{"lifecycle": {"quota": {"refuse": true, "refuse": false}}}`: `"lifecycle.quota.refuse" is given twice`,
	} {
		path := filepath.Join(t.TempDir(), "mnemo-config.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readMemoryConfig(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want it to say %s", body, err, want)
		}
	}
}

// TestStoredConfigDamaged: a damaged mnemo.json (garbled JSON, a value
// that does not apply) fails every command with the way out — fix it,
// replace it with serve --config, or move it away — not a bare JSON
// error; and moving it away makes the directory usable again.
func TestStoredConfigDamaged(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	cfg := filepath.Join(dir, StoredConfigFile)
	for _, body := range []string{`{"recentN": 10, "recall": {"topK": `, `{"lifecycle":{"idleTtl":"soon"}}`} {
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"threads", "check"} {
			code, _, stderr := run(t, nil, "--dir", dir, cmd)
			if code != 1 || !strings.Contains(stderr, "What to do") || !strings.Contains(stderr, "serve --config FILE") || !strings.Contains(stderr, "move it away") {
				t.Fatalf("%s with %s: code %d, stderr %s", cmd, body, code, stderr)
			}
		}
	}
	if err := os.Rename(cfg, cfg+".bad"); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "threads"); code != 0 || !strings.Contains(out, "t1") {
		t.Fatalf("threads after moving it away: %d %s %s", code, out, stderr)
	}
}

// TestConfigFieldFault: a --config member that is unknown or of the wrong
// type is refused naming its path, with the field an unknown one most
// likely meant, in the HTTP API's words. Before, encoding/json's came
// through: `json: unknown field "mdoe"` (which object?), `cannot unmarshal
// string into Go struct field Options.recall.topK of type int`. A whole
// number with an exponent is told how to write it (it was "must be an
// integer, not 1e3").
func TestConfigFieldFault(t *testing.T) {
	for body, want := range map[string]string{
		`{"recal": {}}`:                           `unknown field "recal" (did you mean "recall"?)`,
		`{"recall": {"mdoe": "lexical"}}`:         `unknown field "recall.mdoe" (did you mean "mode"?)`,
		`{"limits": {"maxQueryByte": 5}}`:         `unknown field "limits.maxQueryByte" (did you mean "maxQueryBytes"?)`,
		`{"workingMemory": {"bogus": true}}`:      `unknown field "workingMemory.bogus"`,
		`{"recall": {"topK": "5"}}`:               `"recall.topK" must be a JSON number, not a string`,
		`{"limits": {"maxAnswerBytes": 1.6e7}}`:   `"limits.maxAnswerBytes" must be a whole number written without an exponent: 16000000, not 1.6e7`,
		`{"recall": {"topK": 1e3}}`:               `"recall.topK" must be a whole number written without an exponent: 1000, not 1e3`,
		`{"lifecycle": {"quota": {"refuse": 1}}}`: `"lifecycle.quota.refuse" must be a JSON boolean, not a number`,
	} {
		path := filepath.Join(t.TempDir(), "mnemo-config.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readMemoryConfig(path); err == nil || err.Error() != path+": "+want {
			t.Errorf("%s: err %v, want %s: %s", body, err, path, want)
		}
	}
}

// TestConfigMemberCase: a --config member named in another case than its
// field ("Limits", "recall.TopK") is refused naming its path and the
// field, as the HTTP API refuses such a body member and the token file
// such an entry. Before, encoding/json matched it case-insensitively and
// the file was read as if spelt as docs/serve.md spells it.
func TestConfigMemberCase(t *testing.T) {
	for body, want := range map[string]string{
		`{"Limits": {"maxContentBytes": 65536}}`:      `unknown field "Limits" (did you mean "limits"? names are case-sensitive)`,
		`{"recall": {"TopK": 5}}`:                     `unknown field "recall.TopK" (did you mean "topK"? names are case-sensitive)`,
		`{"limits": {"MAXCONTENTBYTES": 65536}}`:      `unknown field "limits.MAXCONTENTBYTES" (did you mean "maxContentBytes"? names are case-sensitive)`,
		`{"lifecycle": {"quota": {"Refuse": true}}}`:  `unknown field "lifecycle.quota.Refuse" (did you mean "refuse"? names are case-sensitive)`,
		`{"resourceTimeZones": {"Kenji": "UTC"}}`:     ``, // a map's keys are data
		`{"observe": {"model": "m", "Endpoint": ""}}`: `unknown field "observe.Endpoint" (did you mean "endpoint"? names are case-sensitive)`,
	} {
		path := filepath.Join(t.TempDir(), "mnemo-config.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := readMemoryConfig(path)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: err %v, want none", body, err)
		case want != "" && (err == nil || err.Error() != path+": "+want):
			t.Errorf("%s: err %v, want %s: %s", body, err, path, want)
		}
	}
}
