package main

import (
	"fmt"
	"strings"
)

// count is n followed by noun, in the plural unless n is 1: "1 message",
// "0 messages", "3 threads". Nouns take a plain "s", but those ending in
// "ch" ("2 dispatches").
func count[N ~int | ~int64](n N, noun string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("1 %s", noun)
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
