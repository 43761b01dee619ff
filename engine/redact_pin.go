package engine

// pinRule recognises a PIN: the word PIN (a SIM's, a card's, a door's;
// also PIN code, PIN number, pincode), as a word or after '_' or '-'
// (SIM_PIN), a colon or '=' (a quoted key's quote before it: "pin":
// "4821", as a JSON document's pair is tried), then 4 to 8 digits in
// quotes (kept) or bare, ending there: no letter, digit, quote, '.',
// '-', '/' or ':' after them but a sentence's period (a version, a date,
// a time, pin: 2024.1, stays), group end, kept. A PIN is too short a
// secret for the assignment rule's names (PIN: 4821 is no word of
// prose the rule could tell from one, and pin counts pins in
// electronics): red73 found PIN: 48214 stored in clear. A GPIO pin
// (pin = 13) has fewer digits.
func pinRule() Rule {
	return Rule{Name: "pin", Pattern: pinPattern,
		Replacement: "${keep}${q}" + RedactionMark + "${q}${end}", Triggers: []string{"pin"}, lineMay: opAfter}
}

// pinPattern is the pin rule's pattern.
var pinPattern = mustRe(`(?im)(?P<keep>(?:\b|_)pin(?:[ _-]?(?:code|number))?["']?[ \t]*[:=][ \t]*)` +
	`(?:(?P<q>["'])[0-9]{4,8}["']|[0-9]{4,8}(?P<end>[^\w.:/"'\r\n-]|\.(?:[ \t]|$)|$))`)
