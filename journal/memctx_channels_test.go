package journal_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// TestMemCtxChannelsRoundTrip: a record's channel tuning
// (options.channels) is stored and read back as written on both backends:
// the defaults of a hybrid run, a tuned one with the rules off, and none
// recorded (no member, decoded nil: a record written before the channel
// tuning was recorded says nothing of it, and must not read as the
// defaults).
func TestMemCtxChannelsRoundTrip(t *testing.T) {
	cases := []struct {
		name     string
		channels *journal.Channels
		stored   string // the options' channels member as stored, "" for none
	}{
		{"Default", &journal.Channels{Pool: 100, ContextWeight: 0.5, TurnAfter: true, Exchange: true, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			`"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,"exchange":true,"k1":1.2,"b":0.75,"dates":true,"answerTypes":true,"compounds":true}`},
		{"Tuned", &journal.Channels{Pool: 40, BleveScores: true, BleveMatches: true, ExactVectors: true},
			`"channels":{"pool":40,"bleveScores":true,"bleveMatches":true,"exactVectors":true}`},
		{"NotRecorded", nil, ""},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		j, closeDB := b.openJournal(t, b.Place(t))
		defer closeDB()
		ctx := context.Background()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				rec := &journal.MemCtx{RunID: "run-" + c.name, ThreadID: "t", ResourceID: "r", Options: journal.Options{RecentN: 2, TopK: 5, Mode: "hybrid", Channels: c.channels},
					Recalled: []journal.Ref{}, Recent: []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{}}
				if err := j.PutMemCtx(ctx, rec, false); err != nil {
					t.Fatal(err)
				}
				raw, err := j.RawMemCtx(ctx, rec.RunID)
				if err != nil {
					t.Fatal(err)
				}
				if has := strings.Contains(string(raw), `"channels"`); has != (c.stored != "") || !strings.Contains(string(raw), c.stored) {
					t.Errorf("stored %s, want channels %q", raw, c.stored)
				}
				got, err := j.MemCtx(ctx, rec.RunID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Options.Channels, c.channels) {
					t.Errorf("channels read back %+v, want %+v", got.Options.Channels, c.channels)
				}
			})
		}
	})
}
