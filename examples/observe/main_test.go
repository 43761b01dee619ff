package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is a LoCoMo file of one sample with two sessions, enough turns
// for the observer (threshold 20 tokens) to observe something.
func sample(t *testing.T) string {
	t.Helper()
	turns := func(session, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteString(",")
			}
			speaker := "Ann"
			if i%2 == 0 {
				speaker = "Bob"
			}
			b.WriteString(`{"speaker":"` + speaker + `","dia_id":"D` + string(rune('0'+session)) + `:` + string(rune('0'+i)) + `","text":"Turn ` + string(rune('0'+i)) + ` of the talk about gardening and tomatoes."}`)
		}
		return b.String()
	}
	body := `[{"sample_id":"s1","conversation":{"speaker_a":"Ann","speaker_b":"Bob",
 "session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[` + turns(1, 8) + `],
 "session_2_date_time":"10:00 am on 9 May, 2023","session_2":[` + turns(2, 8) + `]},
 "qa":[]}]`
	p := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScratchDirRemoved: without --dir the example works in a scratch
// directory and removes it when it ends, and creates none when the LoCoMo
// file is missing (it used to leave a mnemo-observe-* directory behind in
// both cases).
func TestScratchDirRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	err := run(ctx, []string{"--data", filepath.Join(tmp, "missing.json")}, &bytes.Buffer{})
	// It says where LoCoMo comes from and how to point at it (readme48
	// read only "pass --data FILE or set MNEMO_SHARED_DATA").
	for _, want := range []string{"LoCoMo data not found", "https://github.com/snap-research/LoCoMo", "data/locomo10.json", "--data FILE", "MNEMO_SHARED_DATA"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("missing data: %v; want it to say %q", err, want)
		}
	}
	assertEmpty(t, tmp)
	var out bytes.Buffer
	if err := run(ctx, []string{"--data", sample(t), "--sample", "s1", "--threshold", "20", "--recent", "2"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "observed 1–") || !strings.Contains(out.String(), "removed at exit") {
		t.Errorf("output lacks an observed range or the scratch note:\n%s", out.String())
	}
	assertEmpty(t, tmp)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if strings.HasPrefix(f.Name(), "mnemo-observe-") {
			t.Errorf("the example left %s behind", f.Name())
		}
	}
}
