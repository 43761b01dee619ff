package importer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

func TestJSONLMalformed(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	rep, err := importer.Import(ctx, e, "testdata/malformed.jsonl", importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != importer.FormatJSONL || rep.Messages != 5 || rep.Skipped != 5 || rep.Threads != 2 || rep.Resources != 1 {
		t.Fatalf("report %+v", rep)
	}
	var wheres []string
	for _, p := range rep.Problems {
		wheres = append(wheres, p.Where)
	}
	sort.Strings(wheres)
	if got, want := strings.Join(wheres, ","), "line 10,line 4,line 5,line 6,line 8"; got != want {
		t.Fatalf("problems at %s, want %s", got, want)
	}
	ms, err := e.Messages(ctx, "t1", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// m7's call c2 was stored; its result (line 10, bad date) was skipped.
	if len(ms) != 4 || string(ms[1].ToolCalls[0].Arguments) != `{"q":"x"}` || string(ms[3].ToolCalls[0].Arguments) != `{"a":1}` {
		t.Fatalf("messages %+v", ms)
	}
	t.Run("Strict", func(t *testing.T) {
		e := enginetest.MustOpen(t, engine.Config{})
		rep, err := importer.Import(ctx, e, "testdata/malformed.jsonl", importer.Options{Strict: true})
		var re *importer.RecordError
		if !errors.As(err, &re) || re.Where != "line 4" {
			t.Fatalf("err = %v, want a RecordError at line 4", err)
		}
		if rep.Messages != 3 {
			t.Fatalf("stored %d before the strict stop, want 3", rep.Messages)
		}
	})
	t.Run("Reimport", func(t *testing.T) {
		rep, err := importer.Import(ctx, e, "testdata/malformed.jsonl", importer.Options{})
		if err != nil || rep.Messages != 0 || rep.Duplicates != 5 {
			t.Fatalf("re-import: %+v, %v", rep, err)
		}
	})
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl":    `{"thread":"t"}`,
		"b.json":     `[{"sample_id":"x","conversation":{}}]`,
		"c.json":     `[{"question_id":"q","haystack_sessions":[]}]`,
		"d.json":     `{"thread":"t","role":"user","content":"x"}`,
		"bad.json":   `[{"foo":1}]`,
		"worse.json": `garbage`,
		"empty.json": " [ ] ",
		"blank.json": " \n\n",
		"zero.json":  "",
		"bom.json":   "\uFEFF" + `[{"sample_id":"x","conversation":{}}]`,
		"bomj.json":  "\uFEFF" + `{"thread":"t","role":"user","content":"x"}`,
	}
	want := map[string]string{"a.jsonl": "jsonl", "b.json": "locomo", "c.json": "longmemeval", "d.json": "jsonl", "bomj.json": "jsonl"}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := importer.Detect(p)
		if w, ok := want[name]; ok {
			if err != nil || got != w {
				t.Errorf("%s: %q, %v; want %q", name, got, err, w)
			}
		} else if !errors.Is(err, importer.ErrUnknownFormat) {
			t.Errorf("%s: err = %v, want ErrUnknownFormat", name, err)
		} else if name == "empty.json" && !strings.Contains(err.Error(), "empty JSON array") {
			// It said: first element: invalid character ']'.
			t.Errorf("%s: err = %v, want it to say the array is empty", name, err)
		} else if name == "bom.json" && !strings.Contains(err.Error(), "begins with a UTF-8 byte-order mark (EF BB BF) before its JSON array") {
			// It said: … is neither JSONL nor a JSON array (review17).
			t.Errorf("%s: err = %v, want it to name the byte-order mark", name, err)
		} else if (name == "blank.json" || name == "zero.json") && !strings.HasSuffix(err.Error(), name+" is empty") {
			// It said: … is neither JSONL nor a JSON array.
			t.Errorf("%s: err = %v, want it to say the file is empty", name, err)
		}
	}
}

const locomoSample = `[{"sample_id":"s1","conversation":{"speaker_a":"Ann","speaker_b":"Bob",
 "session_1_date_time":"1:56 pm on 8 May, 2023",
 "session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a cat"},{"speaker":"Bob","dia_id":"D1:2","text":"Look!","blip_caption":"a photo of a dog"},{"speaker":"Eve","dia_id":"D1:3","text":"intruder"}],
 "session_2_date_time":"bad date","session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"x"}],
 "session_3_date_time":"10:00 am on 9 May, 2023",
 "session_3":"not a list",
 "session_4_date_time":"9:00 am on 1 June, 2023"},
 "qa":[{"question":"what pet?","answer":"cat","evidence":["D1:1"],"category":4}]}]`

func TestLoCoMo(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(p, []byte(locomoSample), 0o600); err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{})
	rep, err := importer.Import(ctx, e, p, importer.Options{Format: importer.FormatLoCoMo})
	if err != nil {
		t.Fatal(err)
	}
	// Eve's turn, session 2's date and session 3's body are skipped; session 4
	// has a date but no turns and makes no thread.
	if rep.Messages != 2 || rep.Skipped != 3 || rep.Threads != 1 {
		t.Fatalf("report %+v, problems %v", rep, rep.Problems)
	}
	ms, err := e.Messages(ctx, "s1:session_1", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].ID != "s1:D1:1" || ms[0].Role != "user" || ms[0].Name != "Ann" || ms[0].Metadata["dia_id"] != "D1:1" {
		t.Fatalf("turn 1: %+v", ms[0])
	}
	if ms[1].Role != "assistant" || ms[1].Content != "Look! [image: a photo of a dog]" {
		t.Fatalf("turn 2: %+v", ms[1])
	}
	if got := ms[0].CreatedAt.Format("2006-01-02 15:04"); got != "2023-05-08 13:56" {
		t.Fatalf("created %s", got)
	}
	if _, err := importer.Import(ctx, e, p, importer.Options{Format: importer.FormatLoCoMo, Strict: true}); err == nil {
		t.Fatal("strict import of malformed LoCoMo succeeded")
	}
}

const lmeSample = `[{"question_id":"q1","question_type":"single-session-user","question":"?","answer":"a",
 "haystack_session_ids":["answer_abc","sharegpt_x"],
 "haystack_dates":["2023/05/20 (Sat) 02:21","2023/05/21 (Sun) 10:00"],
 "haystack_sessions":[[{"role":"user","content":"I bought a red bike","has_answer":true},{"role":"assistant","content":"Nice!"}],[{"role":"user","content":"hello"},{"role":"system","content":"bad role"}]],
 "answer_session_ids":["answer_abc"]}]`

func TestLongMemEval(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lme.json")
	if err := os.WriteFile(p, []byte(lmeSample), 0o600); err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{})
	rep, err := importer.Import(ctx, e, p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != importer.FormatLongMemEval || rep.Messages != 3 || rep.Skipped != 1 || rep.Threads != 2 {
		t.Fatalf("report %+v", rep)
	}
	ts, _ := e.ListThreads(ctx, "q1")
	for _, th := range ts {
		if strings.Contains(th.ID+th.Title, "answer") || strings.Contains(th.ID+th.Title, "sharegpt") {
			t.Fatalf("thread %+v exposes the original session id", th)
		}
	}
	ms, _ := e.Messages(ctx, "q1:s0", 1, 0)
	if len(ms) != 2 || ms[0].ID != "q1:s0:0" || ms[0].Metadata != nil || ms[0].CreatedAt.Format("2006-01-02 15:04") != "2023-05-20 02:21" {
		t.Fatalf("messages %+v", ms)
	}
}
