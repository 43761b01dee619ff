package journal_test

import (
	"reflect"
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
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := roundTrip(t, j, "run-"+c.name, journal.Options{RecentN: 2, TopK: 5, Mode: "hybrid", Channels: c.channels}, `"channels"`, c.stored)
				if !reflect.DeepEqual(got.Options.Channels, c.channels) {
					t.Errorf("channels read back %+v, want %+v", got.Options.Channels, c.channels)
				}
			})
		}
	})
}
