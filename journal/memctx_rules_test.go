package journal_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// TestMemCtxRulesRoundTrip: a record's hybrid rules (options.rules) are
// stored and read back as written on both backends: every rule with its
// weight, none running ({}), and none recorded (no member, decoded nil:
// a record written before the rules were recorded says nothing of them,
// and must not read as the defaults or as {}).
func TestMemCtxRulesRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		rules  *journal.Rules
		stored string // the options' rules member as stored, "" for none
	}{
		{"All", &journal.Rules{ExchangeOrder: true, SessionWeight: 0.15, TopicWeight: 0.15, SpeakerWeight: 2, DateWeight: 2},
			`"rules":{"exchangeOrder":true,"sessionWeight":0.15,"topicWeight":0.15,"speakerWeight":2,"dateWeight":2}`},
		{"Some", &journal.Rules{ExchangeOrder: true, SpeakerWeight: 2, DateWeight: 2}, `"rules":{"exchangeOrder":true,"speakerWeight":2,"dateWeight":2}`},
		{"NoneRan", &journal.Rules{}, `"rules":{}`},
		{"NotRecorded", nil, ""},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		j, closeDB := b.openJournal(t, b.Place(t))
		defer closeDB()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := roundTrip(t, j, "run-"+c.name, journal.Options{RecentN: 2, TopK: 5, Mode: "hybrid", Fusion: "rrf", FusionParams: &journal.FusionParams{K: 60}, Rules: c.rules}, `"rules"`, c.stored)
				if !reflect.DeepEqual(got.Options.Rules, c.rules) {
					t.Errorf("rules read back %+v, want %+v", got.Options.Rules, c.rules)
				}
			})
		}
	})
}

// roundTrip stores a memctx record of run id with options o in j, fails t
// unless the stored bytes hold key (a JSON key, quoted) exactly when
// stored is not "" and then hold stored, and returns the record read back.
func roundTrip(t *testing.T, j *journal.Journal, id string, o journal.Options, key, stored string) *journal.MemCtx {
	t.Helper()
	ctx := context.Background()
	rec := &journal.MemCtx{RunID: id, ThreadID: "t", ResourceID: "r", Options: o,
		Recalled: []journal.Ref{}, Recent: []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{}}
	if err := j.PutMemCtx(ctx, rec, false); err != nil {
		t.Fatal(err)
	}
	raw, err := j.RawMemCtx(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if has := strings.Contains(string(raw), key); has != (stored != "") || !strings.Contains(string(raw), stored) {
		t.Errorf("stored %s, want %s %q", raw, key, stored)
	}
	got, err := j.MemCtx(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
