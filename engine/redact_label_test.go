package engine_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestRedactLabelProse: a list's or heading's label that ends in a
// credential word and a colon, in Markdown emphasis, after a list marker
// or in title case, keeps the sentence after it (red68: 16 of the 23
// texts of LoCoMo and LongMemEval the rules changed lost the rest of
// their line, "3. **Check credentials**: [REDACTED]"). A value that is no
// sentence (a digit, a symbol, a code span, a token's case, fewer than 6
// words or 2 stop words), a label that is none (a plain sentence's words
// before the colon) and a secret assigned inside the sentence are still
// replaced.
func TestRedactLabelProse(t *testing.T) {
	m := engine.RedactionMark
	cases := []struct{ name, in, want string }{
		// Secrets: replaced as before.
		{"bold-token", "**Password**: hunter2 x", "**Password**: " + m},
		{"bold-passphrase", "**Password**: correct horse battery staple", "**Password**: " + m},
		{"bold-words-digit", "3. **Password**: the quick brown fox jumps 42 times over it", "3. **Password**: " + m},
		{"bold-words-symbol", "**Password**: the quick brown fox is not at home&", "**Password**: " + m},
		{"list-code-span", "* Password: `admin` (or the one you set during the setup)", "* Password: " + m},
		{"list-short", "\t* Password: password (or leave it blank)", "\t* Password: " + m},
		{"bold-api-key", "**API key**: sk9f8e7d6c5b4a3f2e1d0c", "**API key**: " + m},
		{"list-user-password", "* Credentials: admin / Tr0ub4dor&3", "* Credentials: " + m},
		{"bold-token-case", "**Password**: xKqPzWvLmTr and the rest of it is here", "**Password**: " + m},
		{"bold-long-upper", "**Password**: XKQPZWVLMTRB and the rest of it is here", "**Password**: " + m},
		{"bold-path", "**Token**: read it from the file at /etc/app/token please", "**Token**: " + m},
		{"sentence-assigns", "**Credentials**: log in as the admin user with password: swordfishes",
			"**Credentials**: log in as the admin user with password: " + m},
		{"plain-label", "Check credentials: Look for tailors who are members of a guild.", "Check credentials: " + m},
		{"plain-key", "password: the quick brown fox jumps over the lazy dog", "password: " + m},
		{"plain-prose-secret", "A secret: my PIN is 4821", "A secret: my PIN is " + m},
		// A singular field name with no article before it is a field
		// (red69): its value is a secret whatever its shape.
		{"field-wifi-passphrase", "- **WiFi password**: the quick brown fox jumps over the lazy dog", "- **WiFi password**: " + m},
		{"field-list-passphrase", "- Password: my dog ate all of the homework again", "- Password: " + m},
		{"field-heading-passphrase", "## Passphrase: when in doubt it is better to leave it out", "## Passphrase: " + m},
		{"field-bullet-secret", "* Secret: The trick is to let the dough rest overnight in the fridge.", "* Secret: The trick is " + m},
		{"field-list-how-to", "- Password: how to choose one that you can remember", "- Password: " + m},
		{"field-heading-how-digit", "## Password: how 2 choose one that you can remember", "## Password: " + m},
		{"field-title-token", "Access Token: the one from the admin page of the site", "Access Token: " + m},
		{"yaml-key-value", "db:\n  password: hunter2hunter2", "db:\n  password: " + m},
		// Prose: kept.
		{"bold-label", "3. **Check credentials**: Look for tailors who are members of a trade guild in your town.", ""},
		{"bold-colon-inside", "**Local secrets:** The staff might share a few hidden trails that only locals know about.", ""},
		{"bold-title", "1. **Keep it a Secret**: Make sure the guests keep the party a secret until the day.", ""},
		{"bold-quoted-title", `6. **"The Book of Secrets: Unlocking the Hidden Rooms of Your House"** by A. Writer - a guide to old houses.`, ""},
		{"underscores", "__Credentials__: Check that the lawyer is licensed to practise in your state.", ""},
		{"italic", "*Credentials*: Check that the lawyer is licensed to practise in your state.", ""},
		{"bullet", "* Credentials: Verify memberships in trade groups and certifications (e.g., ABC or XYZ)", ""},
		{"dash-bullet", "- Credentials: Ask whether the trainer holds a certificate from a national body.", ""},
		{"bold-plural-passwords", "**Strong passwords**: Use a phrase that is easy for you to remember.", ""},
		{"heading-an-article", "## Keep an Access Key: Store it in a place that only you can reach.", ""},
		{"title-case", "Local Secrets: The staff might share a few of the hidden trails with you.", ""},
		{"mixed-case-names", "**Check credentials**: Look them up on LinkedIn or on the YouTube channel of the guild.", ""},
		{"json-value", `{"content": "3. **Check credentials**: Look for tailors who are members of a guild."}`, ""},
		{"escaped-line", `log: "ok\n3. **Check credentials**: Look for tailors who are members of a guild." level=info`, ""},
		// red70: a heading's question or how-to (how, what, why) after
		// a singular label is a title, not a passphrase.
		{"heading-how-to", "## Password: how to choose one that is strong", ""},
		{"heading-what", "### Secret: what the chef does to the dough before baking it", ""},
		{"heading-why", "# Token: Why the refresh flow needs a second round trip", ""},
		{"second-line", "Tips:\n2. **Credentials**: Check if the appraiser is a member of a professional body.\n", ""},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			if got := r.Redact(c.in); got != want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
		})
	}
}

// TestRedactLabelQualified: a credential word with a bracketed or dashed
// note before its colon, a possessive one and a password word in the
// plural (rev70: each stored in clear) have their value replaced when it
// has a secret's shape; a plural keeps a sentence after it, as a topic
// label does, and a possessive is the field's, no topic.
func TestRedactLabelQualified(t *testing.T) {
	m := engine.RedactionMark
	cases := []redactCase{
		{"bracketed", "Password (home wifi): hunter2hunter2", "Password (home wifi): " + m},
		{"bracketed-bold", "- **Password (home wifi)**: Tr0ub4dor&3", "- **Password (home wifi)**: " + m},
		{"bracketed-after-bold", "**Password** (wifi): hunter2hunter2", "**Password** (wifi): " + m},
		{"dashed", "- Password - Wifi: Tr0ub4dor&3", "- Password - Wifi: " + m},
		{"dashed-en-dash", "* API key – staging server: 9f8e7d6c5b4a3f2e", "* API key – staging server: " + m},
		{"bracketed-quoted", `log: "Password (wifi): abc123xyz" level=info`, `log: "Password (wifi): ` + m + `" level=info`},
		{"bracketed-passphrase", "Passphrase (laptop): the quick brown fox jumps over the lazy dog", "Passphrase (laptop): " + m},
		{"possessive", "- **password's**: Tr0ub4dor&3", "- **password's**: " + m},
		{"possessive-sentence", "- **password's**: the quick brown fox jumps over the lazy dog", "- **password's**: " + m},
		{"plural-label", "- WiFi passwords: Tr0ub4dor&3", "- WiFi passwords: " + m},
		{"plural-prose-line", "I changed both passwords: hunter2 and swordfish", "I changed both passwords: " + m},
		{"plural-bracketed", "Passwords (family): Tr0ub4dor&3 and hunter2hunter2", "Passwords (family): " + m},
		{"creds-label", "- **Creds**: Tr0ub4dor&3", "- **Creds**: " + m},
		// red73 (readme72 F2): each stored in clear.
		{"dashed-hyphenated", "- Password - Wi-Fi: Tr0ubG16\n- Password - Home Wi-Fi: Tr0ubG17", "- Password - Wi-Fi: " + m + "\n- Password - Home Wi-Fi: " + m},
		{"bracketed-next-line", "Password (home wifi):\n  Tr0ubG08", "Password (home wifi):\n  " + m},
		{"bracketed-equals", "Password (home wifi) = Tr0ubG26", "Password (home wifi) = " + m},
		{"square-bracketed", "Password [home wifi]: Tr0ub4dorA4", "Password [home wifi]: " + m},
		{"braced", "Password {home wifi}: Tr0ub4dorA5", "Password {home wifi}: " + m},
		{"two-notes", "Password (wifi) (guest): Tr0ubG19", "Password (wifi) (guest): " + m},
		{"doubled-parentheses", "Password ((home)): Tr0ubG20", "Password ((home)): " + m},
		{"two-dashed-notes", "- Password - Wifi - Guest: Tr0ub4dorB6", "- Password - Wifi - Guest: " + m},
		{"word-in-note", "Wi-Fi (password): Tr0ub4dorD9\nRouter [admin password]: Tr0ub4dorD8", "Wi-Fi (password): " + m + "\nRouter [admin password]: " + m},
		{"break-before-note", "Password\n(home wifi): Tr0ubG14", "Password\n(home wifi): " + m},
		{"break-before-colon", "Password (home wifi)\n: Tr0ubG15\nToken\n: abcd1234efgh", "Password (home wifi)\n: " + m + "\nToken\n: " + m},
		{"full-width-colon", "password：Tr0ubX2\npassword (home wifi)： Tr0ubX1\n**Password**：hunter2x", "password：" + m + "\npassword (home wifi)： " + m + "\n**Password**：" + m},
		// Kept: a sentence after a plural, a placeholder, usage counts.
		{"plural-sentence", "Passwords: use a phrase that is easy for you to remember", ""},
		{"plural-bracketed-sentence", "- **Passwords (family)**: Use a phrase that is easy for you to remember.", ""},
		{"bracketed-reference", "Password (home wifi): $WIFI_PASSWORD", ""},
		{"dashed-placeholder", "Password - Wifi: <your password>", ""},
		{"token-counts", `{"prompt_tokens": 12, "total_tokens": 1500}`, ""},
		{"tokens-plural", "tokens: 1500 in, 300 out", ""},
		// red73: prose, code and usage counts around the new forms.
		{"bracketed-prose", "my password (the old one) was reset", ""},
		{"code-walrus", `password := os.Getenv("X")`, ""},
		{"index-equals", "secrets[name] = value; tokens = [t for t in text.split()]", ""},
		{"plural-equals-code", `passwords = ["a", "b"]`, ""},
		{"prose-note", "Forgot (your password): click the link\nGET %s (text/html, no token): %d, Location %q", ""},
		{"usage-note", "Usage (tokens used): 1500\ntokens [input]: 1500\nmax_tokens (per call) = 4096", ""},
		{"note-placeholder-equals", "api_key (optional) = None; password (str) = getPassword()", ""},
		{"full-width-placeholder", "password：<your password>\nPasswords：use a phrase that is easy for you to remember", ""},
		{"wrapped-placeholder", "Password\n: <your password>\nEnter the password\n: ", ""},
	}
	for i := range cases {
		if cases[i].want == "" {
			cases[i].want = cases[i].in // kept as written
		}
	}
	checkRedact(t, cases)
}
