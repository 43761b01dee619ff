package main

import "fmt"

// count is n followed by noun, in the plural unless n is 1: "1 message",
// "0 messages", "3 threads". Nouns take a plain "s".
func count[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
