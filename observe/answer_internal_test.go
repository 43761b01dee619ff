package observe

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// answerChunk is the chunk the answers of testdata/answers are checked
// against: seqs 3 to 5.
var answerChunk = []Turn{
	{ThreadID: "t", Seq: 3, Role: RoleUser, Content: "Nice weather today."},
	{ThreadID: "t", Seq: 4, Role: RoleUser, Content: "I live in Lyon and work as a baker."},
	{ThreadID: "t", Seq: 5, Role: RoleAssistant, Content: "A baker in Lyon, lovely."},
}

// checkAnswer is what the observer does with a raw answer before
// recording it: parseAnswer, checkObserved over answerChunk, then
// finishItems (splitting an item past MaxItemChars).
func checkAnswer(raw string) ([]Item, Dropped, error) {
	items, err := parseAnswer(raw, "observations")
	if err != nil {
		return nil, Dropped{}, err
	}
	o := &Observer{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	items, d, err := o.checkObserved(context.Background(), items, answerChunk)
	if err != nil {
		return nil, d, err
	}
	items, _ = o.finishItems(context.Background(), items, &d, "observer")
	return items, d, nil
}

// TestObserverAnswers: the observer's answers in testdata/answers, as
// parsed and checked before they are recorded. An empty list is a valid
// answer of no items (observer-v3 refused it: ErrEmptyAnswer, and the
// chunk was sent again on every call); citations outside the chunk are
// taken out, an item citing only such seqs is dropped, and an item
// repeated in one answer is kept once (observer-v3 stored "The user lives
// in Lyon." citing seq 999).
func TestObserverAnswers(t *testing.T) {
	type item struct {
		text string
		seqs []int64
	}
	cases := []struct {
		file    string
		want    []item // nil with wantErr
		dropped Dropped
		wantErr error
	}{
		{"empty-list.json", []item{}, Dropped{}, nil},
		{"empty-list-fenced.txt", []item{}, Dropped{}, nil},
		{"null-list.json", nil, Dropped{}, ErrEmptyAnswer},
		{"blank.txt", nil, Dropped{}, ErrEmptyAnswer},
		{"blank-items.json", nil, Dropped{}, ErrEmptyAnswer},
		{"wrong-field.json", nil, Dropped{}, ErrMalformedAnswer},
		{"trailing-brace.json", nil, Dropped{}, ErrMalformedAnswer},
		{"no-text.json", nil, Dropped{}, ErrMalformedAnswer},
		{"outside-seqs.json", nil, Dropped{}, ErrEmptyAnswer},
		{"mixed-seqs.json", []item{{"The user lives in Lyon.", []int64{3, 5}}}, Dropped{Citations: 1}, nil},
		{"duplicates.json", []item{{"The user lives in Lyon.", []int64{3, 5}}, {"The user is a baker.", []int64{5}}}, Dropped{Uncited: 1, Duplicates: 1}, nil},
		{"uncited.json", []item{{"The user lives in Lyon.", nil}, {"The user is a baker.", nil}}, Dropped{}, nil},
		{"one-bad-one-good.json", []item{{"The user lives in Lyon.", []int64{4}}}, Dropped{Uncited: 1}, nil},
		{"nul-text.json", []item{{"The user lives in Lyon.", []int64{4}}}, Dropped{}, nil}, // walk53: Postgres refused the NUL, every call
		// walk58 F4: a model copying the rendered "- " (and the untrusted
		// mark) back stored "- - …"; the stored item holds the fact only.
		{"list-markers.json", []item{{"The user lives in Lyon.", []int64{4}}, {"The user is a baker.", []int64{4}}, {"x - y -5", []int64{4}}}, Dropped{}, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "answers", c.file))
			if err != nil {
				t.Fatal(err)
			}
			items, dropped, err := checkAnswer(string(raw))
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []item{}
			for _, it := range items {
				got = append(got, item{it.Text, it.Seqs})
			}
			if !reflect.DeepEqual(got, c.want) || dropped != c.dropped {
				t.Fatalf("items %v, dropped %+v; want %v, %+v", got, dropped, c.want, c.dropped)
			}
		})
	}
}

// FuzzObserverAnswer: whatever the model answers, parsing and checking
// it against answerChunk either fails with ErrEmptyAnswer or
// ErrMalformedAnswer, or gives items with text of at most MaxItemChars
// runes and no NUL, distinct (case-insensitively), each citing only seqs of the
// chunk, sorted and once each.
func FuzzObserverAnswer(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "answers"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join("testdata", "answers", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(raw))
	}
	f.Fuzz(func(t *testing.T, raw string) {
		items, _, err := checkAnswer(raw)
		if err != nil {
			if !errors.Is(err, ErrEmptyAnswer) && !errors.Is(err, ErrMalformedAnswer) {
				t.Fatalf("error of no kind: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, it := range items {
			key := strings.ToLower(it.Text)
			if it.Text == "" || utf8.RuneCountInString(it.Text) > MaxItemChars || seen[key] || strings.ContainsRune(it.Text, 0) {
				t.Fatalf("item %q (seen before: %v)", it.Text, seen[key])
			}
			seen[key] = true
			if !slices.IsSorted(it.Seqs) || len(slices.Compact(slices.Clone(it.Seqs))) != len(it.Seqs) {
				t.Fatalf("seqs %v not sorted once each", it.Seqs)
			}
			for _, s := range it.Seqs {
				if s < 3 || s > 5 {
					t.Fatalf("item %q cites seq %d outside the chunk", it.Text, s)
				}
			}
		}
	})
}
