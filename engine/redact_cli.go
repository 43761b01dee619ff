package engine

import (
	"regexp"
	"strings"
)

// cliRules recognise a password or token given to a command on its
// command line, as agent transcripts hold them (a shell tool's command):
// a long flag and its value apart by a blank (--password X; --password=X
// is an assignment), and the short flags of the commands whose -p, -a or
// -P takes a password (docker login -p X, sshpass -p X, mysql -pX,
// redis-cli -a X, sqlcmd -P X, openssl enc -k X, -K hex, dgst -hmac X),
// and openssl's password sources (-pass pass:X, cliOpenSSLPass). Before
// (red62), all of these were stored in clear; sshpass -pX glued and
// openssl's until red66, docker login -pX glued and openssl's keys until
// red67.
func cliRules() []Rule {
	return []Rule{
		{Name: "cli-secret-flag", Pattern: cliFlag, Replacement: "${keep}${q}" + RedactionMark + "${q}",
			Triggers: cliFlagTriggers, verifyIn: cliValue(cliFlag)},
		{Name: "cli-password-short", Pattern: cliShort, Replacement: "${keep}${q}" + RedactionMark + "${q}",
			Triggers: []string{"login", "sshpass", "mysql", "mariadb", "redis-cli", "sqlcmd"}, verifyIn: cliShortValue(cliShort)},
		{Name: "cli-openssl-key", Pattern: opensslCommand, Triggers: []string{"openssl"}, rewrite: opensslKeys},
		{Name: "cli-openssl-pass", Pattern: cliOpenSSLPass, Replacement: "${keep}${q}" + RedactionMark + "${q}",
			Triggers: []string{"pass:"}, verifyIn: passSourceValue(cliOpenSSLPass)},
	}
}

// cliFlagTriggers hold every match of cliFlag: its credential word
// follows a '-' or '_' (--password, --db_token), or ends in storepass or
// keypass. Not "key" or "token" alone: a 1 MB line of key blocks or
// prose naming a token ran cliFlag on all of it (2.3x the CPU of
// BenchmarkRedactorMB/key-blocks, red63).
var cliFlagTriggers = []string{"-passw", "_passw", "-passphrase", "_passphrase", "storepass", "keypass",
	"-token", "_token", "-secret", "_secret", "-api", "_api", "-access", "_access", "-cred", "_cred"}

// cliValueForm is a flag's value (group v): a double- or single-quoted
// string on its line (its quote: group q, kept), or a bare word that
// starts with no '-' (the next flag), no quote and no shell operator
// (gh auth login --with-token < token.txt).
const cliValueForm = `(?P<v>(?P<q>")[^"\r\n]*"|(?P<q>')[^'\r\n]*'|[^\s"'<>|&;-][^\s"']*)`

// cliFlag is cli-secret-flag's pattern: after a blank or the line's start,
// one or two dashes, a flag whose last word is a credential word
// (--password, --db-password, --api-key, --token, --client-secret,
// keytool's -storepass, -keypass, -destkeypass, skopeo's and podman's
// --creds user:X, --registry-creds), blanks, the value.
var cliFlag = regexp.MustCompile(`(?im)(?P<keep>(?:^|[ \t])--?(?:[a-z0-9]+[-_])*` +
	`(?:password|passwd|passphrase|[a-z]*(?:store|key)pass|token|secret|api-?key|access-?key|secret-?key|creds|credentials)[ \t]+)` +
	cliValueForm)

// cliShort is cli-password-short's pattern: a command whose short flag
// takes a password, its other arguments on the line (no pipe, ';' or
// '&' between), then the flag and the value: -p after docker, podman,
// nerdctl, buildah, skopeo, helm (registry) or oras login, the value
// after a blank, '=' or glued (docker login -pX: pflag, their flag
// parser, reads a shorthand's value so; red67: it was stored in clear),
// and -p glued to the value after mysql, mysqldump, mysqladmin,
// mariadb (mysql -p alone asks for it; -P is the port), or apart by a
// blank (group gap: mysql then reads the word as the database, and
// cliShortValue keeps one shaped like a database name); -a after
// redis-cli; -P after sqlcmd. openssl's are cli-openssl-key's
// (opensslCommand).
//
// sshpass's -p is one of the options before the command it runs
// (sshpassOpts: sshpass stops reading options there), its value apart by
// a blank or glued (sshpass -phunter, as getopt reads it): a -p of the
// command (sshpass -f pw ssh -p 2222 host) is that command's, a port.
var cliShort = regexp.MustCompile(`(?P<keep>\b(?i:(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)(?:[ \t]+registry)?[ \t]+login)\b[^\r\n|;&]*?[ \t]-p(?:[ \t]+|=)?)` + cliValueForm +
	`|(?P<keep>\b(?i:sshpass)` + sshpassOpts + `[ \t]+-p[ \t]*)` + cliValueForm +
	`|(?P<keep>\b(?i:mysql|mysqldump|mysqladmin|mariadb)\b[^\r\n|;&]*?[ \t]-p(?P<gap>[ \t]+)?)` + cliValueForm +
	`|(?P<keep>\bredis-cli\b[^\r\n|;&]*?[ \t]-a[ \t]+)` + cliValueForm +
	`|(?P<keep>\bsqlcmd\b[^\r\n|;&]*?[ \t]-P[ \t]+)` + cliValueForm)

// opensslCommand is cli-openssl-key's pattern: an openssl command, to a
// line break or a shell operator (|, ;, &) outside quotes; a line break
// after a backslash continues the command (openssl kdf … \ then
// -kdfopt key:X on the next line, as openssl-kdf(1)'s examples write
// it: red70).
var opensslCommand = regexp.MustCompile(`\bopenssl\b(?:\\\r?\n|[^\r\n|;&'"]|'[^'\r\n]*'|"[^"\r\n]*"|['"])*`)

// opensslKey is an option of an openssl command that takes a secret, and
// its value (cliValueForm): -k (enc's password; -kfile names a file), -K
// (enc's raw key in hex; -iv, the IV, is no secret and stays), -hmac
// (dgst's HMAC key), -macopt key: or hexkey: (the key of -mac HMAC;
// openssl-mac(1)), and -kdfopt and -pkeyopt key:, pass:, secret: and
// their hex forms (the secret, password or key a KDF derives from;
// openssl-kdf(1), openssl-pkeyutl(1) -kdf; salt:, info:, digest: stay).
// red67 added -hmac and -macopt; until red68, only the first of them on
// a command was found (openssl enc -k X … -K Y kept Y); -kdfopt and
// -pkeyopt until red70.
var opensslKey = regexp.MustCompile(`(?P<keep>[ \t](?:-[kK][ \t]+|-hmac[ \t]+|-(?:mac|kdf|pkey)opt[ \t]+(?:hex)?(?:key|pass|secret):))` + cliValueForm)

// opensslKeys is cli-openssl-key's rewrite: each value of an opensslKey
// option in cmd, an openssl command, that is a secret as cliShortValue
// judges one (quotedOrBareSecret, lowercasePassword) becomes
// RedactionMark, a quoted one's quotes kept.
func opensslKeys(cmd string) string {
	v, q := opensslKey.SubexpIndex("v"), opensslKey.SubexpIndex("q")
	var b strings.Builder
	last := 0
	for _, m := range opensslKey.FindAllStringSubmatchIndex(cmd, -1) {
		val := firstGroup(cmd, m, opensslKey, v)
		if !quotedOrBareSecret(val) && !lowercasePassword(val) {
			continue
		}
		quote := firstGroup(cmd, m, opensslKey, q)
		b.WriteString(cmd[last:m[2*v]])
		b.WriteString(quote + RedactionMark + quote)
		last = m[1]
	}
	b.WriteString(cmd[last:])
	return b.String()
}

// sshpassOpts are sshpass's options other than -p, before it: -f file,
// -d fd and -P prompt with their values (glued or apart, a value quoted
// or a word), -e with its variable's name glued, -v, -h, -V.
const sshpassOpts = `(?:[ \t]+-[fdP][ \t]*(?:'[^'\r\n]*'|"[^"\r\n]*"|[^\s'"]+)|[ \t]+-[evhV][^\s'"]*)*`

// cliOpenSSLPass is cli-openssl-pass's pattern: openssl's password
// options (-pass, -passin, -passout, pkcs12's -password; one or two
// dashes, the value after blanks or '='), and the source pass:, whose
// text is the password (openssl-passphrase-options(1)); after it the
// value, or the rest of a string quoted before pass: ('pass:two words').
// The other sources (env:VAR, file:path, fd:N, stdin) name where the
// password is, and stay. openssl only reads them so, and Easy-RSA's
// --passin=pass:X passes them on: no command name is asked for.
var cliOpenSSLPass = regexp.MustCompile(`(?P<keep>` + opensslPassFlag + `'pass:)(?P<v>[^'\r\n]+)` +
	`|(?P<keep>` + opensslPassFlag + `"pass:)(?P<v>[^"\r\n]+)` +
	`|(?P<keep>` + opensslPassFlag + `pass:)` + cliValueForm)

// opensslPassFlag is the flag of cliOpenSSLPass and what parts it from
// its value.
const opensslPassFlag = `(?:^|[ \t])--?pass(?:in|out|word)?(?:[ \t]+|=)`

// passSourceValue is the verifyIn of cli-openssl-pass: the text after
// pass: is a password, a word of lowercase letters too, unless it is a
// placeholder or a reference (pass:$PW, pass:<password>) or an ellipsis
// (prose: "use -pass pass:… in scripts").
func passSourceValue(re *regexp.Regexp) func(s string, m []int) bool {
	v := re.SubexpIndex("v")
	return func(s string, m []int) bool {
		val := firstGroup(s, m, re, v)
		if strings.Trim(val, ".…") == "" || placeholderValue(val) {
			return false
		}
		return val[0] != '"' && val[0] != '\'' || len(val) > 2
	}
}

// cliValue returns a verifyIn for a flag pattern re: it reports whether
// the value of a match m of s (re's first group v that took part) is a
// secret: no placeholder or reference ($PW, "${TOKEN}", <password>), and,
// bare, not one lowercase word, as prose about a flag writes one ("pass
// the --token flag", "--password option"): a bare secret holds a digit, a
// capital or a symbol (a sentence's ',' or '.' after it is no symbol).
// After a flag named for a password (--password, --passwd,
// --passphrase, -storepass), a word of lowercase letters is one too
// (--password correcthorse) unless it is a word of prose about the flag
// (proseWords: "--password option", "--password is required"): before
// (red64), every lowercase password was stored in clear.
func cliValue(re *regexp.Regexp) func(s string, m []int) bool {
	keep, v := re.SubexpIndex("keep"), re.SubexpIndex("v")
	return func(s string, m []int) bool {
		flag, val := firstGroup(s, m, re, keep), firstGroup(s, m, re, v)
		if passwordSource(flag, val) || filePath(val) {
			return false
		}
		if !quotedOrBareSecret(val) {
			return flagEndsIn(flag, passwordFlagEnds) && lowercasePassword(val) || flagEndsIn(flag, credsFlagEnds) && credsPair(val)
		}
		return true
	}
}

// credsPair reports whether v, a bare value bareSecret kept after a
// flag of credsFlagEnds, is USER:PASSWORD with a password of lowercase
// letters (and '-', '_'), of any length: --creds alice:hunterpw (readme68
// F6: stored in clear), --creds bob:abc (rev70: kept, as a password of
// lowercase letters needed 4 of them). After such a flag the part after
// the colon is the password whatever its length; prose writes no
// user:pass pair after --creds. A password that is itself a placeholder
// word (user:pass, user:password, user:null) is an example and stays.
func credsPair(v string) bool {
	user, pw, ok := strings.Cut(v, ":")
	if !ok || user == "" || pw == "" || strings.Trim(pw, "abcdefghijklmnopqrstuvwxyz-_") != "" {
		return false
	}
	switch pw {
	case "pass", "password", "passwd", "secret", "token", "pw", "pwd":
		return false
	}
	return !placeholders[pw]
}

// filePath reports whether v, a flag's value (quoted or not), names a
// file, as --credentials ~/creds.json does (red71: it was replaced, '~'
// being a symbol): it starts with ~/, ./, ../, $HOME/ or ${HOME}/, or
// is a path from a system's top directory (/etc/…, /home/…, /Users/…),
// or a name, or an absolute path, whose last part ends in a credential
// file's or a config file's extension (creds.json, sa-key-2.json,
// /run/app/token.txt). No shell word the flags take a secret from is
// written so; the price: a password spelled as one (Hunter2.txt) stays.
func filePath(v string) bool {
	if len(v) > 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return pathStart.MatchString(v) || namedFile.MatchString(v)
}

// pathStart is the start of a path filePath takes whatever follows.
var pathStart = regexp.MustCompile(`^(?:~|\.\.?|\$HOME|\$\{HOME\})/|^/(?:etc|home|run|var|tmp|Users|root|opt|mnt|srv|usr|secrets)/`)

// namedFile is a file name, or an absolute path of such names, with an
// extension a credential or a config file has.
var namedFile = regexp.MustCompile(`(?i)^/?(?:[\w.-]+/)*[\w.-]*\w\.(?:json|ya?ml|txt|ini|cfg|conf|toml|env|xml|pem|key|crt|p12|pfx|jks|properties|netrc|gpg|asc)$`)

// passwordSource reports whether val, after flag (cliFlag's group keep),
// is an openssl password source given to pkcs12's -password: env:PW and
// file:, fd: name where the password is, and pass:X is
// cli-openssl-pass's, which keeps its pass: (-password pass:[REDACTED],
// not -password [REDACTED] on a second pass).
func passwordSource(flag, val string) bool {
	if f := strings.TrimSpace(flag); f != "-password" && f != "--password" {
		return false
	}
	return strings.HasPrefix(val, "pass:") || strings.HasPrefix(val, "env:") ||
		strings.HasPrefix(val, "file:") || strings.HasPrefix(val, "fd:")
}

// cliShortValue is cliValue for cliShort: a value shaped like a port
// mapping (3306:3306, 127.0.0.1:8080:80/tcp) is no password (docker run
// --name mysql -p3306:3306: the rule read mysql, the container's name,
// as the client, and took the mapping, red64), and a word after mysql
// -p and a blank (group gap), which mysql reads as a database, is one
// only when no database name is written so (mysqlDatabase). Every flag
// of cliShort takes a password, so a word of lowercase letters is one too
// (sshpass -p hunter), unless it is prose (lowercasePassword).
func cliShortValue(re *regexp.Regexp) func(s string, m []int) bool {
	gap, v, keep := re.SubexpIndex("gap"), re.SubexpIndex("v"), re.SubexpIndex("keep")
	return func(s string, m []int) bool {
		val := firstGroup(s, m, re, v)
		if portMapping.MatchString(val) || m[2*gap] >= 0 && mysqlDatabase(val) {
			return false
		}
		if strings.HasSuffix(firstGroup(s, m, re, keep), "-p") && pFlags[val] {
			return false // -pretty: a flag, not -p and "retty"
		}
		return quotedOrBareSecret(val) || lowercasePassword(val)
	}
}

// pFlags are the rest of single-dash flags that start with p (-pretty,
// -print, -password-stdin), as a writer puts them on a login's line: read
// glued to -p, the rest is no password (red70: docker login … -pretty
// was stored -p[REDACTED]). The price: a password glued to -p that
// spells one of them (-pretty) is kept.
var pFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`retty rint lain assword assword-stdin asswd ort roxy rofile roject
		rompt rogress ush ull latform urge ublic`) {
		m[w] = true
	}
	return m
}()

// firstGroup is the text of the first group of re named as group i that
// took part in the match m of s ("" when none did): the rules' patterns
// repeat a name in their alternatives.
func firstGroup(s string, m []int, re *regexp.Regexp, i int) string {
	name := re.SubexpNames()[i]
	for j, n := range re.SubexpNames() {
		if n == name && m[2*j] >= 0 {
			return s[m[2*j]:m[2*j+1]]
		}
	}
	return ""
}

// quotedOrBareSecret reports whether v, a flag's value, is a secret as
// any flag's: no placeholder or reference, and quoted with something
// between its quotes, or bare and bareSecret.
func quotedOrBareSecret(v string) bool {
	if v == "" || placeholderValue(v) {
		return false
	}
	if v[0] == '"' || v[0] == '\'' {
		return len(v) > 2
	}
	return bareSecret(v)
}

// portMapping is a value of -p that publishes a port (Docker's
// "--publish": [ip:]hostPort:containerPort[/protocol], ranges with '-').
var portMapping = regexp.MustCompile(`^(?:[0-9.]+:|\[[0-9A-Fa-f:]+\]:)?[0-9]+(?:-[0-9]+)?:[0-9]+(?:-[0-9]+)?(?:/(?:tcp|udp|sctp))?$`)

// mysqlDatabase reports whether v, the word after mysql -p and a blank,
// may be the database mysql reads it as: an unquoted identifier (MySQL
// "Schema Object Names": letters, digits, '$' and '_') that does not mix
// lowercase, capitals and digits as a password does (app, wp_prod, MyDB
// stay; Sup3rS3cret, S3cret! go: a user who wrote the password there
// meant it for one, and mysql shows it in its "Unknown database" error).
func mysqlDatabase(v string) bool {
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$_") != "" {
		return false
	}
	lower := strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz")
	upper := strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	return !(lower && upper && strings.ContainsAny(v, "0123456789"))
}

// flagEndsIn reports whether flag, the text of cliFlag's group keep (a
// blank, the flag, blanks), ends in one of ends, any case.
func flagEndsIn(flag string, ends []string) bool {
	f := strings.ToLower(strings.TrimRight(flag, " \t"))
	for _, end := range ends {
		if strings.HasSuffix(f, end) {
			return true
		}
	}
	return false
}

// passwordFlagEnds end a flag that names a password: its last word is
// password, passwd or passphrase, or it ends in pass (-storepass); or a
// flag whose value is a credential, --credentials (a word after it is a
// password too: --credentials hunterpass, red70, stored in clear; after
// --creds, skopeo's USERNAME[:PASSWORD], a word alone is the user's name,
// and the password is asked for).
var passwordFlagEnds = []string{"password", "passwd", "passphrase", "pass", "credentials"}

// credsFlagEnds end a flag whose value is a user and a password
// (skopeo's and podman's --creds USER:PASSWORD, --src-creds,
// --registry-creds, --credentials).
var credsFlagEnds = []string{"creds", "credentials"}

// lowercasePassword reports whether v, a bare value bareSecret kept,
// is a password of lowercase letters (and '-', '_'), 4 or more, after a
// password flag: no word of prose (proseWords) or placeholder (null,
// required), none before a sentence's punctuation or an escaped line
// break ("--password option.", "--password option\nnext").
func lowercasePassword(v string) bool {
	if len(v) < 4 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyz-_") != "" {
		return false
	}
	return !proseWords[v] && !placeholders[v]
}

// proseWords are words that follow a flag's name in prose about it ("use
// the --password option", "--password is required", "--passphrase
// when the key has one"), not a password given with it. The price: a
// password that is one of them (--password switch) is stored in clear.
var proseWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`option options flag flags argument arguments arg args parameter
		parameters param params switch switches field fields value values setting settings variable
		prompt prompts file files stdin input from into with without when then than that this these
		those which where here there instead also only must should shall will would could might
		does doesn't isn't aren't have has been being were was are and but nor for your their
		each every both either neither rather again first later before after because unless until
		while since like just even still already always never once twice accepts takes expects
		requires required sets works used using uses via over under above below what whatever
		whenever wherever whether something nothing anything everything someone anyone everyone
		given provided passed supplied specified set needs need must`) {
		m[w] = true
	}
	return m
}()

// bareSecret reports whether an unquoted flag value v is a secret: it
// holds a digit, a capital or a symbol, and is no word of a sentence (a
// word of letters before a ',' or '.': "the --token Flag, or"), no
// lowercase spec (docker build --secret id=npm,src=.npmrc: lowercase
// letters and -_.,=/: only; what comes before an escaped \n judged), no placeholder in capitals (YOUR_API_KEY).
func bareSecret(v string) bool {
	if i := strings.IndexByte(v, '\\'); i >= 0 && i+1 < len(v) && strings.IndexByte("nrt", v[i+1]) >= 0 {
		v = v[:i] // an escaped line break ends the line: "--password option\nnext"
		if v == "" {
			return false
		}
	}
	w := strings.TrimRight(v, ",.;:)!?")
	if w != v && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return false
	}
	if strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
		return false // a placeholder's name: YOUR_API_KEY, TOKEN
	}
	return strings.Trim(w, "abcdefghijklmnopqrstuvwxyz-_.,=/:") != ""
}

// notNamedFile rejects an assignment whose value names a file (filePath)
// and whose name is a command-line flag (--credentials=~/creds.json,
// --token=./token.txt) or ends in credentials or creds
// (GOOGLE_APPLICATION_CREDENTIALS=/home/bob/sa.json, a variable that
// names a key file): cli-secret-flag keeps such a value after a blank,
// and the '=' form was replaced (red73). Any other name keeps its rule:
// password=~/pw.txt is replaced.
func notNamedFile(s string, m []int) bool {
	match := s[m[0]:m[1]]
	v := strings.TrimRight(assignedValue(match), ",;") // a bare value runs to a blank: x.json; next
	if len(v) == len(match) || strings.ContainsAny(v, " \t,;=&|<>`") || !filePath(strings.Trim(v, `\`)) {
		return true // one path and nothing else: ~/x,password=… is replaced whole
	}
	word := m[0]
	for word > 0 && nameByte(s[word-1]) {
		word--
	}
	if s[word] == '-' {
		return false // a flag: its name starts with a dash
	}
	name := strings.ToLower(strings.TrimRight(match[:len(match)-len(v)], " \t=:"))
	return !strings.HasSuffix(name, "credentials") && !strings.HasSuffix(name, "creds")
}
