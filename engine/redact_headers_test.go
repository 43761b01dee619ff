package engine_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestRedactHeaderLists: a header field's value in a list of header fields
// is tried after its name, as an object's member is: node's rawHeaders
// (a flat list) and lists of [name, value] pairs (walk44 F12). Before,
// [["Authorization","token ghp_…"]] and [["X-Api-Key","…"]] were stored
// in clear: no rule saw the name with its value.
func TestRedactHeaderLists(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"pair-authorization", `[["Authorization","token 7a1f0c2e9b8d4f3a"]]`, `[["Authorization","token ` + m + `"]]`},
		{"pair-api-key", `[["Accept","text/plain"],["X-Api-Key","abcd1234efgh5678"]]`, `[["Accept","text/plain"],["X-Api-Key","` + m + `"]]`},
		{"raw-headers", `{"rawHeaders":["Host","api.example.com","x-api-key","abcd1234efgh5678","Accept","*/*"]}`,
			`{"rawHeaders":["Host","api.example.com","x-api-key","` + m + `","Accept","*/*"]}`},
		{"raw-headers-pretty", "[\n  \"Authorization\",\n  \"token 7a1f0c2e9b8d4f3a\"\n]", "[\n  \"Authorization\",\n  \"token " + m + "\"\n]"},
		{"in-log-line", `INFO headers=[["X-Auth-Token","abcd1234efgh5678"]] status=200`, `INFO headers=[["X-Auth-Token","` + m + `"]] status=200`},
		{"odd-list-kept", `["password","reset","link"]`, `["password","reset","link"]`},
		{"plain-headers-kept", `[["Accept","text/plain"],["X-Trace","abcd1234efgh5678"]]`, `[["Accept","text/plain"],["X-Trace","abcd1234efgh5678"]]`},
		{"not-names-kept", `["a password here","hunter2hunter2"]`, `["a password here","hunter2hunter2"]`},
		// Lists of words are no header lists (walk47 F3: the word after
		// the credential word was replaced).
		{"columns-kept", `{"cols":["id","name","token","created_at"]}`, `{"cols":["id","name","token","created_at"]}`},
		{"tags-kept", `{"tags":["secret","public"]}`, `{"tags":["secret","public"]}`},
		{"glossary-kept", `{"glossary":["Password","a word you keep","Token","an object"]}`, `{"glossary":["Password","a word you keep","Token","an object"]}`},
		{"private-token", `["Host","gitlab.example.com","Private-Token","abcd1234efgh5678"]`, `["Host","gitlab.example.com","Private-Token","` + m + `"]`},
	})
}

// TestRedactCookies: the values of a Cookie or Set-Cookie header line
// are replaced, whatever their names, and the names, Set-Cookie's
// attributes and the text around stay; prose naming a cookie, a value of
// 0-3 characters, a cleared cookie and an example's placeholder stay.
// red67: every replaced row was stored in clear (but token=, a
// credential name); red70 added curl's -b and --cookie, document.cookie
// and cookie maps (cookies={'sid': …}); red71 a JSON document's cookie
// maps and cookie lists (HAR, Playwright's storageState).
func TestRedactCookies(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"cookie", "Cookie: sessionid=abc123def456ghi789", "Cookie: sessionid=" + m},
		{"cookie-pairs", "cookie: sessionid=abc123def456; _ga=GA1.2.1234567.89; lang=en", "cookie: sessionid=" + m + "; _ga=" + m + "; lang=en"},
		// A credential name's value is the assignment rule's, which runs
		// first and takes a ';' after the value with it (as in
		// Password=…;Database=app); a credential name and its value
		// inside a cookie's value are found so too.
		{"credential-name", "Cookie: sid=abc123def456; csrftoken=Xy9aB3kLmN0pQ; lang=en", "Cookie: sid=" + m + "; csrftoken=" + m + " lang=en"},
		{"assignment-inside", "cookie: sid=$SESpassword: ION_ID", "cookie: sid=" + m + " " + m},
		{"set-cookie-attributes", "Set-Cookie: __Host-sid=Xy9aB3kLmN0pQ; Path=/; Secure; HttpOnly", "Set-Cookie: __Host-sid=" + m + "; Path=/; Secure; HttpOnly"},
		{"set-cookie-quoted", `Set-Cookie: sid="Xy9aB3kLmN0pQ"; Max-Age=3600`, `Set-Cookie: sid="` + m + `"; Max-Age=3600`},
		{"curl-header", "curl -H 'Cookie: sessionid=abc123def456' https://x.io", "curl -H 'Cookie: sessionid=" + m + "' https://x.io"},
		{"crlf-response", "HTTP/1.1 200 OK\r\nSet-Cookie: sid=Xy9aB3kLmN0pQ; Path=/\r\nContent-Length: 0\r\n", "HTTP/1.1 200 OK\r\nSet-Cookie: sid=" + m + "; Path=/\r\nContent-Length: 0\r\n"},
		{"escaped-break", `log: "Cookie: sessionid=abc123def456\nnext line"`, `log: "Cookie: sessionid=` + m + `\nnext line"`},
		{"json-header-map", `{"headers": {"Cookie": "sessionid=abc123def456; theme=dark"}}`, `{"headers": {"Cookie": "sessionid=` + m + `; theme=` + m + `"}}`},
		{"har-entry", `{"name": "Cookie", "value": "sessionid=abc123def456"}`, `{"name": "Cookie", "value": "sessionid=` + m + `"}`},
		{"raw-headers", `["Set-Cookie", "sid=Xy9aB3kLmN0pQ; Path=/"]`, `["Set-Cookie", "sid=` + m + `; Path=/"]`},
		// rev68: single quotes (Python, JavaScript) were stored in clear.
		{"python-dict", `requests.get(url, headers={'Cookie': 'sessionid=abc123def456; theme=dark'})`, `requests.get(url, headers={'Cookie': 'sessionid=` + m + `; theme=` + m + `'})`},
		{"js-object", `fetch(url, {headers: {Cookie: 'sessionid=abc123def456'}})`, `fetch(url, {headers: {Cookie: 'sessionid=` + m + `'}})`},
		{"mixed-quotes", `{"Set-Cookie": 'sid=Xy9aB3kLmN0pQ; Path=/'}`, `{"Set-Cookie": 'sid=` + m + `; Path=/'}`},
		// red70: curl's cookie data, a script's document.cookie and a
		// cookie map were stored in clear.
		{"curl-b", "curl -b 'sessionid=abc123def456ghi' https://x.io", "curl -b 'sessionid=" + m + "' https://x.io"},
		{"curl-cookie-pairs", `curl --cookie "sid=Xy9aB3kLmN0pQ; theme=darkmode" https://x.io`, `curl --cookie "sid=` + m + `; theme=` + m + `" https://x.io`},
		{"curl-b-glued-bare", "curl -s -bsid=abc123def456 https://x.io", "curl -s -bsid=" + m + " https://x.io"},
		{"cookie-equals", "wget --cookie=sid=abc123def456 https://x.io", "wget --cookie=sid=" + m + " https://x.io"},
		{"document-cookie", `document.cookie = "sid=abc123def456ghi; path=/; max-age=3600";`, `document.cookie = "sid=` + m + `; path=/; max-age=3600";`},
		{"document-cookie-escaped", `{"code": "document.cookie=\"sessionid=abc123def456\""}`, `{"code": "document.cookie=\"sessionid=` + m + `\""}`},
		{"python-cookies-arg", "requests.get(url, cookies={'sessionid': 'abc123def456ghi', 'lang': 'en'})", "requests.get(url, cookies={'sessionid': '" + m + "', 'lang': 'en'})"},
		{"python-cookies-lines", "cookies = {\n    'sessionid': 'abc123def456ghi',\n    \"csrf\": \"Xy9aB3kLmN0pQ\",\n}\nr = requests.get(url, cookies=cookies)",
			"cookies = {\n    'sessionid': '" + m + "',\n    \"csrf\": \"" + m + "\",\n}\nr = requests.get(url, cookies=cookies)"},
		{"session-cookies-update", "s.cookies.update({'sid': 'abc123def456'})", "s.cookies.update({'sid': '" + m + "'})"},
		{"js-cookies-object", "fetch(url, {cookies: {sid: 'abc123def456'}})", "fetch(url, {cookies: {sid: '" + m + "'}})"},
		{"header-words-after-token", "Cookie: sid=abc123def in the request", "Cookie: sid=" + m + " in the request"},
		{"curl-cookie-jar-kept", "curl -b cookies.txt https://x.io; curl -b jar.txt -c jar.txt https://x; curl --cookie \"$COOKIE\" https://x",
			"curl -b cookies.txt https://x.io; curl -b jar.txt -c jar.txt https://x; curl --cookie \"$COOKIE\" https://x"},
		{"document-cookie-reference-kept", "document.cookie = `sid=${sid}; path=/`", "document.cookie = `sid=${sid}; path=/`"},
		{"cookie-map-prose-kept", "the cookies: {'oatmeal': 'raisin and chocolate'}; cookies = {}", "the cookies: {'oatmeal': 'raisin and chocolate'}; cookies = {}"},
		{"header-prose-kept", "cookie: chocolate=chip and milk", "cookie: chocolate=chip and milk"},
		{"quoted-prose-kept", "the 'cookie': 'oatmeal raisin', the best", "the 'cookie': 'oatmeal raisin', the best"},
		{"prose-kept", "the cookie policy says: be nice. The Cookie: header carries name=value pairs; Cookies: 3 accepted", "the cookie policy says: be nice. The Cookie: header carries name=value pairs; Cookies: 3 accepted"},
		{"recipe-kept", "Cookie: chocolate chip, oatmeal", "Cookie: chocolate chip, oatmeal"},
		{"example-kept", "Cookie: name=value; name2=value2\nSet-Cookie: <name>=<value>", "Cookie: name=value; name2=value2\nSet-Cookie: <name>=<value>"},
		{"short-cleared-reference-kept", "Cookie: a=b; lang=en\nSet-Cookie: sid=deleted; Expires=Thu, 01 Jan 1970 00:00:00 GMT\ncookie: sid=$SESSION_ID",
			"Cookie: a=b; lang=en\nSet-Cookie: sid=deleted; Expires=Thu, 01 Jan 1970 00:00:00 GMT\ncookie: sid=$SESSION_ID"},
		{"names-kept", "cookie_name=sessionid; set cookie sid in the browser", "cookie_name=sessionid; set cookie sid in the browser"},
		// red71: a JSON document's cookie map and cookie list (HAR,
		// Playwright's storageState) were redacted string by string, and
		// stored in clear.
		{"json-cookie-map", `{"cookies": {"sessionid": "abc123def456ghi"}}`, `{"cookies": {"sessionid": "` + m + `"}}`},
		{"json-cookie-list", `{"cookies": [{"name": "sid", "value": "abc123def456ghi"}]}`, `{"cookies": [{"name": "sid", "value": "` + m + `"}]}`},
		{"har-cookies", `{"log": {"entries": [{"request": {"cookies": [{"name": "sid", "value": "abc123def456ghi", "domain": ".x.com", "httpOnly": true}], "headers": []}}]}}`,
			`{"log": {"entries": [{"request": {"cookies": [{"name": "sid", "value": "` + m + `", "domain": ".x.com", "httpOnly": true}], "headers": []}}]}}`},
		{"storage-state-value-first", "{\n  \"cookies\": [\n    {\"value\": \"Xy9aB3kLmN0pQ\", \"name\": \"__Host-sid\", \"path\": \"/\"}\n  ]\n}",
			"{\n  \"cookies\": [\n    {\"value\": \"" + m + "\", \"name\": \"__Host-sid\", \"path\": \"/\"}\n  ]\n}"},
		{"json-cookies-in-log-line", `INFO saved state={"Cookies": {"sid": "abc123def456ghi", "lang": "en"}} ok`,
			`INFO saved state={"Cookies": {"sid": "` + m + `", "lang": "en"}} ok`},
		{"json-request-cookies-escaped", `{"requestCookies": [{"name": "sid", "value": "abc\u0031def456ghi"}]}`,
			`{"requestCookies": [{"name": "sid", "value": "` + m + `"}]}`},
		{"json-cookies-short-deleted-kept", `{"cookies": [{"name": "lang", "value": "en"}, {"name": "sid", "value": "deleted"}]}`,
			`{"cookies": [{"name": "lang", "value": "en"}, {"name": "sid", "value": "deleted"}]}`},
		{"json-cookies-prose-kept", `{"cookies": {"oatmeal": "raisin and chocolate"}}`, `{"cookies": {"oatmeal": "raisin and chocolate"}}`},
		{"json-cookies-nested-kept", `{"cookies": {"n": 3, "x": {"a": "abc123def456ghi"}}, "other": {"name": "sid", "value": "abc123def456ghi"}}`,
			`{"cookies": {"n": 3, "x": {"a": "abc123def456ghi"}}, "other": {"name": "sid", "value": "abc123def456ghi"}}`},
		// red73 (readme72 F3): a cookie key's string, a singular cookie
		// key's map and a browser's cookie export with no key were
		// stored in clear.
		{"json-set-cookie-string", `{"set_cookie": "session=toolCookie0014abc; Path=/", "ok": true}`, `{"set_cookie": "session=` + m + `; Path=/", "ok": true}`},
		{"json-cookies-string", `{"cookies": "sessionid=cookievalabcdefgh; lang=en"}`, `{"cookies": "sessionid=` + m + `; lang=en"}`},
		{"json-cookie-singular-map", `{"cookie": {"sessionid": "cookievalabcdefgh"}}`, `{"cookie": {"sessionid": "` + m + `"}}`},
		{"json-cookie-export", `[{"domain": ".example.com", "hostOnly": false, "name": "sid", "path": "/", "value": "cookievalabcdefgh"}]`,
			`[{"domain": ".example.com", "hostOnly": false, "name": "sid", "path": "/", "value": "` + m + `"}]`},
		{"json-cookie-consent-kept", `{"cookie_consent": {"analytics": "granted", "ads": "denied"}, "cookies": {"analytics": true}}`,
			`{"cookie_consent": {"analytics": "granted", "ads": "denied"}, "cookies": {"analytics": true}}`},
		{"json-cookie-consent-strings-kept", `{"cookies": {"analytics": "accepted", "marketing": "rejected", "necessary": "granted"}}`,
			`{"cookies": {"analytics": "accepted", "marketing": "rejected", "necessary": "granted"}}`},
		{"json-cookie-settings-kept", `{"cookie": {"secure": true, "maxAge": 3600, "sameSite": "lax", "domain": "example.com", "path": "/", "name": "connect.sid"}}`,
			`{"cookie": {"secure": true, "maxAge": 3600, "sameSite": "lax", "domain": "example.com", "path": "/", "name": "connect.sid"}}`},
		{"json-cookie-prose-kept", `{"cookies": "the cookies we accept are listed below", "cookie": "chocolate chip"}`,
			`{"cookies": "the cookies we accept are listed below", "cookie": "chocolate chip"}`},
		{"json-dns-record-kept", `{"records": [{"domain": "example.com", "name": "www", "value": "mailserverabcd", "type": "A"}]}`,
			`{"records": [{"domain": "example.com", "name": "www", "value": "mailserverabcd", "type": "A"}]}`},
	})
}
