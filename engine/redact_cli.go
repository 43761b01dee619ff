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
// redis-cli -a X, sqlcmd -P X). Before (red62), all of these were stored
// in clear.
func cliRules() []Rule {
	return []Rule{
		{Name: "cli-secret-flag", Pattern: cliFlag, Replacement: "${keep}${q}" + RedactionMark + "${q}",
			Triggers: cliFlagTriggers, verifyIn: cliValue(cliFlag)},
		{Name: "cli-password-short", Pattern: cliShort, Replacement: "${keep}${q}" + RedactionMark + "${q}",
			Triggers: []string{"login", "sshpass", "mysql", "mariadb", "redis-cli", "sqlcmd"}, verifyIn: cliValue(cliShort)},
	}
}

// cliFlagTriggers hold every match of cliFlag: its credential word
// follows a '-' or '_' (--password, --db_token), or ends in storepass or
// keypass. Not "key" or "token" alone: a 1 MB line of key blocks or
// prose naming a token ran cliFlag on all of it (2.3x the CPU of
// BenchmarkRedactorMB/key-blocks, red63).
var cliFlagTriggers = []string{"-passw", "_passw", "-passphrase", "_passphrase", "storepass", "keypass",
	"-token", "_token", "-secret", "_secret", "-api", "_api", "-access", "_access"}

// cliValueForm is a flag's value (group v): a double- or single-quoted
// string on its line (its quote: group q, kept), or a bare word that
// starts with no '-' (the next flag), no quote and no shell operator
// (gh auth login --with-token < token.txt).
const cliValueForm = `(?P<v>(?P<q>")[^"\r\n]*"|(?P<q>')[^'\r\n]*'|[^\s"'<>|&;-][^\s"']*)`

// cliFlag is cli-secret-flag's pattern: after a blank or the line's start,
// one or two dashes, a flag whose last word is a credential word
// (--password, --db-password, --api-key, --token, --client-secret,
// keytool's -storepass, -keypass, -destkeypass), blanks, the value.
var cliFlag = regexp.MustCompile(`(?im)(?P<keep>(?:^|[ \t])--?(?:[a-z0-9]+[-_])*` +
	`(?:password|passwd|passphrase|[a-z]*(?:store|key)pass|token|secret|api-?key|access-?key|secret-?key)[ \t]+)` +
	cliValueForm)

// cliShort is cli-password-short's pattern: a command whose short flag
// takes a password, its other arguments on the line (no pipe, ';' or
// '&' between), then the flag and the value: -p and a blank after docker,
// podman, nerdctl, buildah, skopeo, helm (registry) or oras login and
// sshpass; -p glued to the value after mysql, mysqldump, mysqladmin,
// mariadb (mysql -p alone asks for it; -P is the port); -a after
// redis-cli; -P after sqlcmd.
var cliShort = regexp.MustCompile(`(?P<keep>\b(?i:(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)(?:[ \t]+registry)?[ \t]+login|sshpass)\b[^\r\n|;&]*?[ \t]-p[ \t]+)` + cliValueForm +
	`|(?P<keep>\b(?i:mysql|mysqldump|mysqladmin|mariadb)\b[^\r\n|;&]*?[ \t]-p)` + cliValueForm +
	`|(?P<keep>\bredis-cli\b[^\r\n|;&]*?[ \t]-a[ \t]+)` + cliValueForm +
	`|(?P<keep>\bsqlcmd\b[^\r\n|;&]*?[ \t]-P[ \t]+)` + cliValueForm)

// cliValue returns a verifyIn for a flag pattern re: it reports whether
// the value of a match m of s (re's first group v that took part) is a
// secret: no placeholder or reference ($PW, "${TOKEN}", <password>), and,
// bare, not one lowercase word, as prose about a flag writes one ("pass
// the --token flag", "--password option"): a bare secret holds a digit, a
// capital or a symbol (a sentence's ',' or '.' after it is no symbol).
func cliValue(re *regexp.Regexp) func(s string, m []int) bool {
	names := re.SubexpNames()
	return func(s string, m []int) bool {
		var v string
		for i, name := range names {
			if name == "v" && m[2*i] >= 0 {
				v = s[m[2*i]:m[2*i+1]]
				break
			}
		}
		if v == "" || placeholderValue(v) {
			return false
		}
		if v[0] == '"' || v[0] == '\'' {
			return len(v) > 2
		}
		return bareSecret(v)
	}
}

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
