package inspector_test

import (
	"strings"
	"testing"
)

// TestThreadPageMessageCount: a thread's page counts its messages in the
// singular when there is one ("1 messages" before).
func TestThreadPageMessageCount(t *testing.T) {
	_, ts := seed(t, nil)
	for thread, want := range map[string]string{"bob-1": "· 1 message ·", "ana-1": "· 7 messages ·"} {
		code, body := get(t, ts.URL+"/ui/threads/"+thread, "")
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want 200 and %q in\n%.800s", thread, code, want, body)
		}
	}
}
