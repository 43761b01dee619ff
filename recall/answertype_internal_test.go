package recall

import "testing"

// TestAnswerBits: the duration and time expressions a message is tagged
// with, and the words that look like them but are not.
func TestAnswerBits(t *testing.T) {
	for _, tc := range []struct {
		text string
		want uint8
	}{
		{"I spent two weeks traveling solo around the country.", typeDuration | typeCount},
		{"It took a few more days to dry.", typeDuration},
		{"We stayed 3 nights", typeDuration | typeCount},
		{"I went to a LGBTQ support group yesterday and it was so powerful.", typeTime},
		{"Last Friday, I went to a counseling workshop.", typeTime},
		{"We moved here in May, two years ago.", typeTime | typeDuration | typeCount},
		{"The concert is on March 3.", typeTime | typeCount},
		{"Back in 2019 I got my first turtles.", typeTime},
		{"You may like it; march on!", 0},
		{"The last time I saw him he was happy.", 0},
		{"I have two dogs and a cat.", typeCount},
		{"I lead a team of 4 engineers now.", typeCount},
		{"I have a dog and a cat.", 0},
		{"", 0},
	} {
		if got := answerBits(tc.text); got != tc.want {
			t.Errorf("%q: bits %b, want %b", tc.text, got, tc.want)
		}
	}
}
