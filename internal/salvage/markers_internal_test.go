package salvage

import "testing"

// TestMarkersOnly: missing seqs are lost markers, not lost messages, only
// when the journal lost rows and the messages table was read and kept
// whole (readme71 F4).
func TestMarkersOnly(t *testing.T) {
	lost := []Range{{From: 3, To: 9}}
	for _, tc := range []struct {
		name              string
		journal, messages Table
		want              bool
	}{
		{"journalUnreadable", Table{Unreadable: lost}, Table{}, true},
		{"journalMissing", Table{Missing: true}, Table{}, true},
		{"journalWhole", Table{}, Table{}, false},
		{"messagesUnreadable", Table{Unreadable: lost}, Table{Unreadable: lost}, false},
		{"messagesMissing", Table{Missing: true}, Table{Missing: true}, false},
		{"messagesGarbled", Table{Unreadable: lost}, Table{Garbled: 1}, false},
		{"messagesInvalid", Table{Unreadable: lost}, Table{Invalid: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.journal.Name, tc.messages.Name = "journal", "messages"
			rep := &Report{Tables: []Table{tc.journal, tc.messages}}
			if got := rep.markersOnly(); got != tc.want {
				t.Fatalf("markersOnly: %v, want %v", got, tc.want)
			}
		})
	}
}
