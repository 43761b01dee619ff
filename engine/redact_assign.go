package engine

import (
	"regexp"
	"slices"
	"strings"
)

// The credential names of the assignment rule (case-insensitive; a name
// ends in one of them: DB_PASSWORD, apiKey, x-api-key, client_secret,
// AccountKey, Pwd). They are the password, secret and key words of
// detect-secrets' keyword plugin (DENYLIST in detect_secrets/plugins/
// keyword.py) and of gitleaks' generic-api-key rule (creds), but not their
// bare "key", "auth", "api" or "access", which name ordinary things in
// prose ("key: the main point"). "pass" alone counts only with a separator
// before it (DB_PASS, --pass, smtp.pass) or as a quoted key ("pass": …):
// "pass: 42, fail: 0" is a test tally, "First pass: read it" a sentence.
const (
	// credentialNames are every credential name: the other rules that
	// read a name (prose-secret, the YAML rules, urlCredential) read all.
	credentialNames = assignNames + `|` + keyNames + `|` + foreignNames
	// assignNames are the assignment rule's names, grouped by their
	// first letter, so that the parser factors their common prefixes
	// (p(?:ass(?:code|…)|riv…|wd)), with [_-]?key written once a letter:
	// written once a name, the 11 of it took the assignment rule past the
	// backtracker's 500 instructions (assignmentPattern). No two names
	// that may match at one position changed order (secret before secret
	// key), so the rules match as before. The program is at 487: new
	// names go to keyNames' rule (4 more names here made it 518).
	assignNames = `a(?:(?:cc(?:ess|ount)|pp(?:lication)?|uth)[_-]?|pi[ _-]?)key` +
		`|c(?:lient[_-]?key|ontrase(?:n|ñ)a|red(?:s|entials?))|d(?:atabase|b)[_-]?key|keypass` +
		`|p(?:ass(?:code|phrase|wd|word)|riv(?:ate)?[_-]?key|wd)|se(?:cret(?:[eos]?|[ _-]?key)|rvice[_-]?key)` +
		`|token|[_.-]pass`
	// keyNames name the keys an application signs, encrypts or derives
	// its other secrets with: Rails' SECRET_KEY_BASE and MASTER_KEY,
	// JWT_SIGNING_KEY, ENCRYPTION_KEY (red64: stored in clear, as no
	// name ended in a credential word). The assignment rule's program
	// had no room for them (assignNames' comment): a second rule,
	// assignment-key, reads them with the same forms
	// (keyAssignmentPattern), on the lines that hold keyTriggers only.
	keyNames = `(?:encryption|master|signing)[_-]?key|secret[_-]?key[_-]?base`
	// foreignNames are the word for password in the languages of Latin
	// script with most speakers whose word is not password's (Spanish
	// contraseña is in assignNames; Italian writes password): German
	// Passwort and Kennwort, French mot de passe, Portuguese senha, Dutch
	// wachtwoord (red73: Passwort (WLAN): x was stored in clear). Other
	// scripts (пароль, 密码, パスワード) are no name: see docs/secrets.md.
	// The assignment-key rule reads them, as the assignment rule's
	// program has no room.
	foreignNames = `passwort|kennwort|mot[ _-]?de[ _-]?passe|wachtwoord|senha`
	// quoted is a "double", 'single' or \"escaped\" quoted value; its
	// quote is group q.
	quoted = `(?P<q>\\")[^"\\\n]+\\"|(?P<q>")(?:[^"\\\n]|\\.)+"|(?P<q>')[^'\n]+'`
	// mdBold is Markdown's strong emphasis closed around a label before or
	// after its colon (**Password**: …, **Password:** …), as a model
	// writes one.
	mdBold = `(?:\*\*|__)?`
	// assignOp is an assignment operator and the blanks around it.
	assignOp = `[ \t]*(?::=|=>|[=:])[ \t]*`
	// afterQuotedName is a quoted name's closing quote, the operator and
	// the value: quoted, or bare up to a blank, ',' or '}' (a number, a
	// literal).
	afterQuotedName = `(?P<op>\\?["']` + assignOp + `)(?:` + quoted + `|[^\s=<>,}"'][^\s,}]{3,})`
	// lineValue is a bare value after a colon: the rest of the line, up to
	// a line break or an escaped one (\n, \r: JSON or logfmt text that is
	// not one JSON document, a truncated tool result), at least 4
	// characters, not starting with '=', '<' or '>' and ending in no blank
	// and no backslash. Before, it ran past "\n" to the end of the raw
	// line, which in JSON text is the rest of the document.
	lineValue = `(?:[^\s=<>\\]|\\[^nr\s])(?:[^\r\n\\]|\\[^nr\r\n]){2,}` + bareEnd
	// shortBeforeBreak is a value of 0-3 bytes before an escaped line
	// break, too short to be told from a word: it runs on to the next
	// blank, as values did before bareByte (walk47 F8:
	// DB_PASSWORD=Xy9\nabcdEFGH1234 and password=\nhunter2secret were
	// kept whole): the next line's first word may go with it, never the
	// secret stay. (The name: value form, lineValue, still keeps
	// token: ab\ncdefghijklmnop.) The run starts after the break: an
	// escaped CRLF's \n is not a word of it (ab\r\n  next was stored
	// [REDACTED]  next, its break lost).
	shortBeforeBreak = `(?:[^\s=<>\\]` + bareByte + `{0,2})?` + escapedBreak + `+(?:(?:[^\s\\]|\\[^nr\s])\S*)?` + bareEnd
	// lineAfterBreak is shortBeforeBreak after a colon: a value of 0-3
	// bytes before an escaped line break runs on to the end of the next
	// escaped line, as a colon's value runs to the end of its line
	// (lineValue). Before (sec48), such a value went through afterName's
	// ':' to the next blank, log: "token: ab\ncdefgh next" was stored
	// log: "token: [REDACTED] next", and a second pass took " next" too.
	// The next line must start with no blank: an indented one is a
	// nested key's (log: "credentials:\n  user: bob" stays); an
	// unindented key there (credentials:\nuser: bob) is kept by
	// keyAfterBreak. A quote that starts the line is taken only with a
	// value after it, and one that ends it stays (bareEnd).
	lineAfterBreak = `(?:[^\s=<>\\]` + bareByte + `{0,2})?` + escapedBreak +
		`(?:(?:[^\s"\\]|\\[^nr\s])(?:(?:[^\r\n\\]|\\[^nr\r\n])*` + bareEnd + `)?|"(?:[^\r\n\\]|\\[^nr\r\n])*` + bareEnd + `)`
	// bareEnd is the last character of a bare value: no blank, no
	// backslash but one that escapes a character other than a line
	// break, and no quote. A value in a quoted string (log:
	// "DB_PASSWORD=S3cretV") ends before the string's closing quote,
	// which is kept; before, the quote went with the value.
	bareEnd = `(?:[^\s"\\]|\\[^nr\s"])`
	// escapedBreak is a line break escaped as text: \n, \r or \r\n (a
	// CRLF in a JSON string). Before, \r\n was two breaks, the value
	// before it stopped at the first one, and a second pass took the
	// words after the line (walk48 F14).
	escapedBreak = `(?:\\r\\n|\\[nr])`
	// afterName is the operator after an unquoted name and the value:
	// quoted, or bare up to the next blank or escaped line break
	// (bareByte: DB_PASSWORD=S3cretV\nnext in a JSON-escaped log keeps
	// \nnext), or shortBeforeBreak.
	afterName = `(?P<op>` + assignOp + `)(?:` + quoted + `|(?:[^\s=<>\\]|\\[^nr\s])` + bareByte + `{2,}` + bareEnd + `|` + shortBeforeBreak + `)`
)

// assignmentPattern is the assignment rule's pattern. Its forms, tried in
// this order at each position (the leftmost match wins, so a URL query
// parameter is taken as such before its name is):
//
//  1. a URL query parameter, any name (?db_password=…, &page=2): the value
//     runs to '&', '#', a quote or a blank, as url-param's (a literal '&'
//     in a query value is escaped as %26, RFC 3986 §3.4); notPlaceholder
//     keeps it unless the name is a credential name (urlCredential);
//  2. an unquoted name, then a colon (prose, YAML, a header: "my password:
//     correct horse battery staple", Markdown "**Password**: …"): a quoted
//     value, or the rest of the line, to a line break or an escaped one
//     (lineValue: YAML's plain scalars run to the end of the line, and a
//     passphrase holds spaces);
//  3. a quoted name ("api_key": …, 'pass': …, \"token\": …: JSON and
//     dictionaries): afterQuotedName;
//  4. an unquoted name with =, := or => (DB_PASSWORD=…, password=…,
//     apiKey := …): afterName.
//
// A bare value starts with none of '=', '>' (a comparison, password ==
// x) and '<' (a <placeholder>), and has at least 4 characters. The group
// keep (form 1), or name and op, is kept before the mark, q around it.
//
// The names are written once, forms 2 to 4 after them, and form 1 names
// none: Go's regexp tries every alternative at every byte, and with the
// names written once per form (626 instructions, past the 500 of its
// backtracker) the rule took 3 to 7 times as long on a text that names a
// credential in passing. At 513 (b89cd14d's value forms, 2026-12-06) it
// again ran on the NFA, 1.4 times as long on a log of assignments; the
// names' [_-]?key written once a first letter brought it to 481, and
// TestAssignmentProgramBacktracks keeps it at most 500.
var assignmentPattern = `(?i)` + queryForm +
	`|(?P<name>` + assignNames + `)` + namedValue +
	`|(?P<name>["']pass)` + afterQuotedName

// namedValue is forms 2 to 4 of assignmentPattern after the name.
const namedValue = `(?:(?P<op>` + mdBold + `[ \t]*:` + mdBold + `[ \t]*)(?:` + quoted + `|` + lineValue + `|` + lineAfterBreak + `)|` + afterQuotedName + `|` + afterName + `)`

// keyAssignmentPattern is the assignment-key rule's pattern:
// assignmentPattern's forms 1 to 4 for keyNames and foreignNames. Its own program (with
// the names in assignNames, 518 instructions: past the backtracker's 500)
// keeps both rules on Go's backtracker, and it runs only on the lines
// holding keyTriggers. Form 1 is here too, so that a query parameter is
// taken as such before its name (?master_key=…&page=2 keeps &page=2).
var keyAssignmentPattern = `(?i)` + queryForm + `|(?P<name>` + keyNames + `|` + foreignNames + `)` + namedValue

// queryForm is assignmentPattern's form 1: a URL query parameter.
const queryForm = `(?P<keep>[?&][\w.-]+=)` + queryByte + `+`

// keyTriggers prefilter assignment-key: each of keyNames and
// foreignNames holds one (foreignTriggers).
var keyTriggers = append([]string{"encryption", "master", "signing", "key_base", "key-base", "keybase"}, foreignTriggers...)

// foreignTriggers are triggers of foreignNames: each holds one.
var foreignTriggers = []string{"passwort", "kennwort", "de passe", "de_passe", "de-passe", "depasse", "wachtwoord", "senha"}

// urlCredential matches the name of a URL query parameter that holds a
// credential: one ending in a credential name, or pass.
var urlCredential = regexp.MustCompile(`(?i)(?:` + credentialNames + `)$|^pass$`)

// assignmentRules recognise a value by the name it is assigned to.
func assignmentRules() []Rule {
	assignment := mustRe(assignmentPattern)
	prose := mustRe(`(?i)(?P<name>` + credentialNames + `)(?P<op>[ \t]*:[ \t]+)(?P<prose>` + proseValue + `)` +
		`(?:[^\s\\]|\\[^nr\s])(?:[^\r\n\\]|\\[^nr\r\n])*`)
	return []Rule{
		// AWS CLI "Configuration and credential file settings".
		{Name: "aws-secret", Pattern: mustRe(`(?i)(aws_?secret_?access_?key\s*[=:]\s*"?)[A-Za-z0-9/+=]{40}`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"secret"}},
		// A sentence after a credential name and a colon ("A secret: my
		// PIN is 4821"): the prose up to its first linking verb stays,
		// everything after it to the end of the line goes (proseValue).
		// The assignment rule then keeps the line (placeholderValue:
		// proseMarked).
		// In a quoted string, the line ends at its closing quote
		// (stringEnd).
		{Name: "prose-secret", Pattern: prose, cut: stringEnd(prose),
			Replacement: "${name}${op}${prose}" + RedactionMark, Triggers: credentialTriggers, may: mayProse,
			verifyIn: notLabelProse},
		// A value assigned to a credential name (assignmentPattern) is
		// replaced whole; a quoted one keeps its quotes, so JSON stays
		// valid. Verify keeps placeholders and code (notPlaceholder), the
		// shell's working directory (notWorkingDirectory), and
		// the query parameters of form 1 with no credential name: those
		// are the only matches without a trigger, and they are kept.
		// verifyIn keeps the shell's working directory and a list's or
		// heading's label followed by a sentence (notLabelProse), whose
		// sentence is searched again (rejectedPart).
		{Name: "assignment", Pattern: assignment,
			Replacement: "${keep}${name}${op}${q}" + RedactionMark + "${q}",
			Triggers:    credentialTriggers,
			Verify:      notPlaceholder, verifyIn: notDirectoryOrLabel, lineMay: opAfter,
			within: rejectedPart(assignment), cut: stringEnd(assignment), rawNamed: holdsCredentialTrigger},
		keyAssignmentRule(),
		qualifiedRule(),
		fullwidthRule(),
		wrappedRule(),
		pinRule(),
	}
}

// keyAssignmentRule is the assignment rule for keyNames (SECRET_KEY_BASE=…,
// "encryption_key": "…", master_key: …) and foreignNames (Passwort: …):
// keyAssignmentPattern, verified,
// cut and searched again as the assignment rule is.
func keyAssignmentRule() Rule {
	re := mustRe(keyAssignmentPattern)
	return Rule{Name: "assignment-key", Pattern: re,
		Replacement: "${keep}${name}${op}${q}" + RedactionMark + "${q}",
		Triggers:    keyTriggers,
		Verify:      notPlaceholder, verifyIn: notLabelProse, lineMay: opAfter,
		within: rejectedPart(re), cut: stringEnd(re), rawNamed: holdsKeyTrigger}
}

// holdsKeyTrigger is assignment-key's rawNamed: raw holds one of
// keyTriggers, as the prefilter reads it (?q=signing_key%3D…, not
// ?q=secret%5Fkey%5Fbase%3D…, whose line the prefilter skips).
func holdsKeyTrigger(raw string) bool {
	raw = asciiLower(raw)
	return slices.ContainsFunc(keyTriggers, func(t string) bool { return strings.Contains(raw, t) })
}

// queryValue gives the assignment rule's within, for its pattern: a URL
// query parameter kept for its name (?q=, &filter=) has its value
// searched again, for an assignment in it (?q=password=hunter2,
// &filter=api_key:sk-…: a logged search or a filter expression); -1 for
// the other forms, and for a pattern with no form 1 (assignment-key).
func queryValue(pattern *regexp.Regexp) func(m []int) int {
	keep := pattern.SubexpIndex("keep")
	return func(m []int) int {
		if keep < 0 || m[2*keep] < 0 {
			return -1
		}
		return m[2*keep+1]
	}
}

// opAfter reports whether line may hold an assignment after its first
// trigger, at: every form's operator holds '=' or ':' and follows the
// name, which holds a trigger (a query parameter with no credential name,
// which may hold none, is kept by notPlaceholder), or is percent-encoded
// in a query value (%3D, %3A: decodedEdits). A log line that names a key
// in passing ("08:40:01 rotated the api key") is not searched.
func opAfter(line string, at int) bool {
	return strings.IndexAny(line[at:], "=:%") >= 0
}

// proseValue is the start of a sentence after a credential name and a
// colon, up to its first linking verb: a word that opens a noun phrase or
// a clause (my, the, it, this, …; not a or an, which a list of letters
// holds), words of ASCII letters and punctuation, then is, was, are or
// were, each followed by a blank. What follows the verb is the secret,
// whatever it is made of: walk48 found "password: my password is
// swordfish, set on 3 May" stored with swordfish when the secret was the
// first word holding a digit or a symbol. A sentence without the verb
// ("password: my dog rex 2019"), and "my password: correct horse battery
// staple", which opens with none of the words, are replaced whole.
const proseValue = `(?:my|our|your|his|her|their|the|it|its|it's|this|that)(?:[ \t]+[A-Za-z'.,;:!?()-]+)*?[ \t]+(?:is|was|are|were)[ \t]+`

// proseMarked is a sentence whose secret prose-secret replaced: the
// assignment rule keeps it (A secret: my PIN is [REDACTED]).
var proseMarked = regexp.MustCompile(`^(?i:` + proseValue + `)` + regexp.QuoteMeta(RedactionMark) + `$`)

// mayProse reports whether s may hold a match of prose-secret: a colon,
// blanks, then a letter among the first ones of proseValue's words.
func mayProse(s string) bool {
	return anyAfterColon(s, func(blanks int, rest string) bool {
		return blanks > 0 && rest != "" && strings.IndexByte("mMoOyYhHtTiI", rest[0]) >= 0
	})
}

// placeholders are assigned values that are not secrets.
var placeholders = map[string]bool{
	"null": true, "none": true, "nil": true, "true": true, "false": true,
	"undefined": true, "required": true, "optional": true, "string": true,
	"empty": true, "redacted": true, "[redacted]": true, "await": true,
	"new": true, "function": true, "lambda": true, "input": true,
}

// reference is a whole value that names a secret kept elsewhere, or
// stands for one already hidden, rather than holding it: a variable
// ($DB_PASSWORD, ${DB_PASSWORD}), a template (GitHub Actions
// ${{ secrets.GITHUB_TOKEN }}, Helm, Jinja and Ansible {{ .Values.x }}),
// a format (Python %(password)s, Windows %PASSWORD%, @PASSWORD@), a
// <placeholder>, or a mask (***, xxxx, [REDACTED], [hidden]). These are
// the values gitleaks' global allowlist skips
// (cmd/generate/config/base/config.go: "Environment Variables",
// "Interpolated Variables", repeated characters) and detect-secrets'
// is_templated_secret and is_prefixed_with_dollar_sign filters
// (detect_secrets/filters/heuristic.py). A default after the variable
// (${DB_PASSWORD:-hunter2}) is no reference: it may be the secret.
var reference = regexp.MustCompile(`^` + referenceForms + `$`)

// referenceForms are reference's forms.
const referenceForms = `(?:` +
	`\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)|\$\{[A-Za-z_][\w.]*\}` +
	`|\$\{\{[\w .|()"'&=!-]*\}\}|\{\{[\w .|()"'$-]*\}\}` +
	`|%\([A-Za-z_]\w*\)[sr]|%[A-Za-z_]\w*%|@[A-Za-z_]\w*@` +
	`|<[^<>]*>|\*+|x{4,}|X{4,}|•+|\[(?i:redacted|hidden|masked|removed|filtered)\]` +
	`)`

// endsInReference matches a header whose value, its last word, is a
// reference (Authorization: Bearer $TOKEN).
var endsInReference = regexp.MustCompile(`[\s"':=]` + referenceForms + `$`)

// notReference rejects a header match whose value is a reference.
func notReference(match string) bool { return !endsInReference.MatchString(match) }

// codeWords start an expression whose value is computed: "await
// getPassword()", "new Secret(…)".
var codeWords = map[string]bool{"await": true, "new": true}

// codeValue is a bare assigned value that is code, not a secret: a call or
// index (fetchToken(, request.form[), or a reference to where the secret
// lives (process.env.X, os.environ, self.x, config.y).
var codeValue = regexp.MustCompile(`^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\([^)]*\)|\[[^\]]*\]|[(\[])$|(?:process\.env|os\.environ|self|this|config|settings|env|cfg|options|opts|props|params|args)[.\[])`)

// notPlaceholder rejects a URL query parameter whose name is no credential
// name, and an assignment whose value is a placeholder, a language keyword
// or code (placeholderValue: secret: process.env.X, password: await
// getPassword()).
func notPlaceholder(match string) bool {
	if match[0] == '?' || match[0] == '&' {
		name, _, _ := strings.Cut(match[1:], "=")
		if !urlCredential.MatchString(name) {
			return false
		}
	}
	v := assignedValue(match)
	return !placeholderValue(v) && !keyAfterBreak(v)
}

// keyAfterBreak reports whether v, an assigned value, is empty before an
// escaped line break (\n, \r, and escaped blanks after it) and the next
// line is a YAML key (user: bob): the name was a key with no value on its
// line, as in log: "credentials:\nuser: bob", where user: bob was stored
// as [REDACTED] (walk48). A value that is no key (password:\nhunter2)
// is still taken.
func keyAfterBreak(v string) bool {
	if !strings.HasPrefix(v, `\n`) && !strings.HasPrefix(v, `\r`) {
		return false
	}
	for len(v) >= 2 && v[0] == '\\' && strings.IndexByte("nrt", v[1]) >= 0 {
		v = strings.TrimLeft(v[2:], " \t")
	}
	return yamlMapping.MatchString(v)
}

// placeholderValue reports whether v, an assigned value (quoted, or bare
// up to its end), is no secret: a placeholder or a language keyword
// (placeholders), a reference to where the secret is kept (reference),
// code (codeValue), a comment ('#' and a blank: YAML 1.2.2 §6.6, a
// key with no value, password: # rotated) or a block scalar's header
// (password: |+2 # note, the value on the lines under it:
// yaml-credential-block). A bare value is judged
// without the ',' or ';' that ends it and after its first word if that
// is await or new. A value of quotes, '$' and braces only holds nothing:
// a quoted scalar or a reference opened at a line's end (- "\n, - ${\n),
// which yaml-escaped's list items replaced by [REDACTED] (red56).
func placeholderValue(v string) bool {
	if v != "" && strings.Trim(v, `"'${}`) == "" {
		return true
	}
	if yamlComment(v) || yamlBlockHeader.MatchString(v) || proseMarked.MatchString(v) {
		return true
	}
	if b := strings.TrimPrefix(strings.TrimPrefix(v, "**"), "__"); len(b) < len(v) {
		b = strings.TrimLeft(b, " \t") // **Password:** |, the bold's end before the value
		if yamlComment(b) || yamlBlockHeader.MatchString(b) {
			return true
		}
	}
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`) || strings.HasPrefix(v, `\"`) {
		v = strings.Trim(v, `"'\`)
		return placeholders[strings.ToLower(v)] || reference.MatchString(v)
	}
	v = strings.TrimRight(v, ",;")
	if placeholders[strings.ToLower(v)] || reference.MatchString(v) {
		return true
	}
	if w, rest, ok := strings.Cut(v, " "); ok && codeWords[strings.ToLower(w)] {
		v = strings.TrimSpace(rest)
	}
	return codeValue.MatchString(v)
}

// yamlComment reports whether v, a bare value, is a comment: '#' alone or
// before a blank. #hunter2 is taken for a value: YAML reads it as a
// comment too, but in other formats (.ini, prose) a password may start
// with '#', and replacing a comment loses less than keeping a password.
func yamlComment(v string) bool {
	return v == "#" || strings.HasPrefix(v, "# ") || strings.HasPrefix(v, "#\t")
}

// assignedValue is the value of an assignment match: what follows the
// first '=' or ':' (no credential name holds one), the rest of a two-byte
// operator (:=, =>) and the blanks after it.
func assignedValue(match string) string {
	i := strings.IndexAny(match, "=:")
	if i < 0 {
		return match
	}
	v := match[i+1:]
	if strings.HasPrefix(v, "=") || strings.HasPrefix(v, ">") {
		v = v[1:]
	}
	return strings.TrimLeft(v, " \t")
}

// notDirectoryOrLabel is the assignment rule's verifyIn: the match m
// (submatch indexes in s) is no assignment to the shell's working
// directory (notWorkingDirectory), no file given to a flag or a
// credentials variable (notNamedFile) and no label followed by a
// sentence (notLabelProse).
func notDirectoryOrLabel(s string, m []int) bool {
	return notWorkingDirectory(s, m) && notNamedFile(s, m) && notLabelProse(s, m)
}

// notLabelProse rejects a match that is a list's or heading's label
// followed by a sentence (labelProse: "3. **Check credentials**: Look
// for cobblers who are members of …").
func notLabelProse(s string, m []int) bool { return !labelProse(s, m) }

// notWorkingDirectory rejects an assignment to the shell's working
// directory: the name is PWD or OLDPWD as a whole (POSIX sh, "Shell
// Variables": the current and the previous working directory; any case,
// quoted or not, "OLDPWD" or export PWD=…) and the value an absolute
// path (/home/bob/project, ~/x, C:\x). PWD is one of the credential
// names (ADO.NET's Pwd=…), and the environment an agent prints holds PWD
// in almost every dump: before, PWD=/home/bob/project was stored
// PWD=[REDACTED]. DB_PWD, x.pwd and a value that is no path stay
// credentials.
func notWorkingDirectory(s string, m []int) bool {
	match := s[m[0]:m[1]]
	if len(match) < 3 || !strings.EqualFold(match[:3], "pwd") {
		return true
	}
	before := s[:m[0]]
	if len(before) >= 3 && strings.EqualFold(before[len(before)-3:], "old") {
		before = before[:len(before)-3]
	}
	if before != "" && nameByte(before[len(before)-1]) {
		return true
	}
	return !workingDirectory(strings.Trim(assignedValue(match), `"'\`))
}

// workingDirectory reports whether v, a value the assignment rule took to
// the next blank, is one absolute path and nothing else: no quote, comma,
// semicolon, '=' or shell operator in it. The rule's match runs past the
// path when no blank follows it (PWD=/home/bob,DB_PASSWORD=…, or
// {"cwd":"PWD=/srv/app","secret":"…"}), and a match kept whole keeps
// every secret in it: walk47 F2, where 9f6a4ff's path exception left
// DB_PASSWORD and "secret" in clear. Such a value is redacted whole, as
// before 9f6a4ff.
func workingDirectory(v string) bool {
	return absolutePath(v) && !strings.ContainsAny(v, "\"',;=&|<>`$")
}

// nameByte reports whether c may be part of a variable or key name.
func nameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= lowerByte[c] && lowerByte[c] <= 'z'
}

// absolutePath reports whether v starts like an absolute path: /, ~/ or
// a drive letter (C:\, C:/).
func absolutePath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") ||
		len(v) >= 3 && 'a' <= lowerByte[v[0]] && lowerByte[v[0]] <= 'z' && v[1] == ':' && (v[2] == '\\' || v[2] == '/')
}
