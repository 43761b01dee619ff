package inspector

import (
	"net/http/httptest"
	"testing"
)

// TestSameOrigin: the check of the sign-in's and the sign-out's POST.
// "Origin: null" with Sec-Fetch-Site same-origin is the server's own page
// under a Referrer-Policy of no-referrer (what Chromium sends then,
// measured with a page served with that header): it was refused as from
// another site, so behind a proxy adding that header nobody could sign in
// or out. A null Origin from anywhere else is still refused.
func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, origin, site string
		want               bool
	}{
		{"Own", "http://example.test:7077", "same-origin", true},
		{"OwnHTTPS", "https://example.test:7077", "", true},
		{"OtherSite", "https://evil.example", "cross-site", false},
		{"OtherPort", "http://example.test:1", "same-site", false},
		{"NotHTTP", "ftp://example.test:7077", "", false},
		{"NoReferrerOwnPage", "null", "same-origin", true},
		{"NullSameSite", "null", "same-site", false},
		{"NullCrossSite", "null", "cross-site", false},
		{"NullNone", "null", "none", false},
		{"NullAlone", "null", "", false},
		{"NoOriginSameOrigin", "", "same-origin", true},
		{"NoOriginCrossSite", "", "cross-site", false},
		{"Neither", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://example.test:7077"+LogoutPath, nil)
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.site != "" {
				r.Header.Set("Sec-Fetch-Site", tc.site)
			}
			if got := sameOrigin(r); got != tc.want {
				t.Fatalf("Origin %q, Sec-Fetch-Site %q: sameOrigin %v, want %v", tc.origin, tc.site, got, tc.want)
			}
		})
	}
}
