package jsonkey_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestByteOrderMark: the UTF-8 mark is 3 bytes to read through, a UTF-16
// one is named, anything else (a mark further on included) is neither.
func TestByteOrderMark(t *testing.T) {
	for _, tc := range []struct {
		data  string
		n     int
		utf16 string
	}{
		{"\uFEFF{}", 3, ""},
		{"\xFF\xFE{\x00", 0, "FFFE"},
		{"\xFE\xFF\x00{", 0, "FEFF"},
		{"{}", 0, ""},
		{"", 0, ""},
		{"\xEF\xBB", 0, ""},
		{" \uFEFF{}", 0, ""},
	} {
		if n, utf16 := jsonkey.ByteOrderMark([]byte(tc.data)); n != tc.n || utf16 != tc.utf16 {
			t.Errorf("ByteOrderMark(%q) = %d, %q; want %d, %q", tc.data, n, utf16, tc.n, tc.utf16)
		}
	}
}
