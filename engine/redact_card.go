package engine

import (
	"strconv"
	"strings"
)

// cardRule recognises payment card numbers (PANs), which PCI DSS
// (Requirement 3.5.1) asks never be stored in clear: 13 to 19 digits
// together, or in groups as printed on cards (4-4-4-4, 4-4-4-4-1…3,
// Amex's 4-6-5; spaces or dashes, one kind per number). A match is kept
// unless its digits pass the Luhn check (ISO/IEC 7812-1 Annex B) and begin
// with a brand's range at a length the brand issues (cardBrands): digit
// strings that are ids, timestamps or phone numbers seldom pass both. The
// number may not follow a letter, a digit, '_', '.' or ',' (a decimal's
// fraction, 0.4111111111111111, stays) nor run on into a fraction
// (4111111111111111.5; a fraction of zeros, 4111111111111111.0 as Python
// prints a float, is none), and grouped digits may not run on into further
// groups of four (a row of numbers in a tool's output, 4023 2746 7357 3214
// 8983, where four of the groups pass the checks as often as any 16
// digits: walk41 #2; 16 digits together then a group, 4111111111111111
// 0127, stay a card); it may follow a JSON escape (\n). The whole row is
// one rejected match, so no later part of it is matched either.
func cardRule() Rule {
	return Rule{Name: "payment-card",
		Pattern:     mustRe(`(?P<edge>^|[^0-9A-Za-z_.,]|\\[nrtbf])(?:\d{13,19}\b|(?:\d{4}(?: \d{4}){2,3}(?: \d{1,3})?|\d{4}(?:-\d{4}){2,3}(?:-\d{1,3})?|\d{4} \d{6} \d{4,5}|\d{4}-\d{6}-\d{4,5})\b(?:[ -]\d{4}\b)*)(?:\.\d+)?`),
		Replacement: "${edge}" + RedactionMark, Triggers: cardTriggers(), Verify: cardNumber, may: digitRun}
}

// digitRun reports whether s holds 13 digits or more in a row, a space or
// a dash allowed between two of them: the regular expression runs only
// then (its triggers, two digits, are in most texts that hold a number,
// and it cost three times the other rules together on synthetic turns).
func digitRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			if n++; n >= 13 {
				return true
			}
		case (c == ' ' || c == '-') && n > 0 && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9':
		default:
			n = 0
		}
	}
	return false
}

// cardBrand is a range of issuer identification numbers: the numbers
// whose first len(strconv.Itoa(lo)) digits lie in [lo, hi], at the
// lengths the brand issues.
type cardBrand struct {
	lo, hi     int
	minL, maxL int
}

// cardBrands are the IIN ranges and lengths of the major brands, from the
// table of "Payment card number" (Wikipedia, which cites each brand's
// rules), as of 2024. Visa's 13-digit numbers are left out (no longer
// issued, and a 13-digit string is as often a phone number with its
// country code, +49 151 …), and so is Maestro (50, 56–69 at 12–19
// digits: too wide a net over ids).
var cardBrands = []cardBrand{
	{4, 4, 16, 16}, {4, 4, 19, 19}, // Visa
	{51, 55, 16, 16}, {2221, 2720, 16, 16}, // Mastercard
	{34, 34, 15, 15}, {37, 37, 15, 15}, // American Express
	{6011, 6011, 16, 19}, {644, 649, 16, 19}, {65, 65, 16, 19}, {622126, 622925, 16, 19}, // Discover
	{3528, 3589, 16, 19},                                   // JCB
	{36, 36, 14, 19}, {300, 305, 16, 19}, {38, 39, 16, 19}, // Diners Club
	{62, 62, 16, 19},     // UnionPay
	{2200, 2204, 16, 19}, // Mir
}

// cardTriggers are the first two digits of every range of cardBrands:
// every card number holds one.
func cardTriggers() []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range cardBrands {
		for v := b.lo; v <= b.hi; v++ {
			s := strconv.Itoa(v)
			if len(s) == 1 {
				for d := '0'; d <= '9'; d++ {
					if t := s + string(d); !seen[t] {
						seen[t] = true
						out = append(out, t)
					}
				}
				continue
			}
			if t := s[:2]; !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// cardNumber reports whether the digits of match are a card number: a
// brand's range and length, the Luhn check, and not round. A fraction the
// pattern took after the number (4111111111111111.5) makes it a decimal
// and no card, unless it is zeros only (4111111111111111.0, a whole
// number as Python and JavaScript print a float: red58 found it kept in
// text such as token=… {"n":4111111111111111.0}, whose JSON is redacted
// as text). A grouped match that runs on into further groups of four
// digits needs no look: the pattern takes them all, and their 20 digits
// or more are no brand's length.
func cardNumber(match string) bool {
	if i := strings.LastIndexByte(match, '.'); i >= 0 {
		if strings.Trim(match[i+1:], "0") != "" {
			return false
		}
		match = match[:i]
	}
	digits := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, match)
	return knownBrand(digits) && luhn(digits) && !round(digits)
}

// roundZeros is how many zeros end a round number.
const roundZeros = 7

// round reports whether digits end in roundZeros zeros or more: a round
// number (4200000000000000, a float printed in full: 4.2e15, a size), of
// which one in ten passes the Luhn check when it starts like a card. A
// card number's last digit is its check digit and the digits before it
// the account number its issuer gives (ISO/IEC 7812-1): one card in ten
// million ends so. Runs of zeros elsewhere are no sign: test cards hold
// them (UnionPay 6200000000000005, Visa 4000000000000002, JCB
// 3530111333300000 ends in five), so the bar is above five.
func round(digits string) bool {
	return strings.HasSuffix(digits, strings.Repeat("0", roundZeros))
}

// knownBrand reports whether digits begin with a range of cardBrands at a
// length the brand issues.
func knownBrand(digits string) bool {
	for _, b := range cardBrands {
		n := len(strconv.Itoa(b.lo))
		if len(digits) < b.minL || len(digits) > b.maxL {
			continue
		}
		if v, err := strconv.Atoi(digits[:n]); err == nil && b.lo <= v && v <= b.hi {
			return true
		}
	}
	return false
}

// luhn reports whether digits pass the Luhn check (ISO/IEC 7812-1 Annex B).
func luhn(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
