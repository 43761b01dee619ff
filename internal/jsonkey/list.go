package jsonkey

import "strings"

// AndList joins names (member names, type names) as a sentence lists them
// in an error message: "a", "a and b", "a, b and c"; "" for none.
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
