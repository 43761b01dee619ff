package engine_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestRedactCommandLineSecrets: a password or token given to a command
// on its command line (a shell tool's command in a transcript) is
// replaced; a flag named in prose, a reference, a port flag and a
// prompt (mysql -p) stay. red62: every secret row was stored in clear.
func TestRedactCommandLineSecrets(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"long-flag", "docker login --username bob --password Sup3rS3cretPW", "docker login --username bob --password " + m},
		{"long-flag-quoted", "mongo --username admin --password 'Sup3rS3cretPW' --quiet", "mongo --username admin --password '" + m + "' --quiet"},
		{"long-flag-named", "deploy --db-password \"s3cret pw\" --api-key AbC123dEf", "deploy --db-password \"" + m + "\" --api-key " + m},
		{"keytool", "keytool -importkeystore -deststorepass Sup3rS3cret -destkeypass K3ypass!", "keytool -importkeystore -deststorepass " + m + " -destkeypass " + m},
		{"docker-login-p", "docker login -u bob -p Sup3rS3cretPW registry.example.com", "docker login -u bob -p " + m + " registry.example.com"},
		{"sshpass", "sshpass -p 'Sup3rS3cretPW' ssh bob@host", "sshpass -p '" + m + "' ssh bob@host"},
		{"mysql-glued", "mysql -u root -pSup3rS3cretPW -h db", "mysql -u root -p" + m + " -h db"},
		{"mysql-glued-quoted", "mysqldump -uroot -p'Sup3rS3cretPW' app > app.sql", "mysqldump -uroot -p'" + m + "' app > app.sql"},
		{"redis-cli", "redis-cli -h cache -a Sup3rS3cretPW ping", "redis-cli -h cache -a " + m + " ping"},
		{"sqlcmd", "sqlcmd -S db -U sa -P Sup3rS3cretPW -Q 'select 1'", "sqlcmd -S db -U sa -P " + m + " -Q 'select 1'"},
		{"in-json-command", `{"command":"docker login -u bob -p Sup3rS3cretPW ghcr.io"}`, `{"command":"docker login -u bob -p ` + m + ` ghcr.io"}`},
		{"prose-flag-kept", "pass the --token flag, or use the --password option", "pass the --token flag, or use the --password option"},
		{"reference-kept", `mycli --api-key "$API_KEY" --token ${TOKEN}`, `mycli --api-key "$API_KEY" --token ${TOKEN}`},
		{"redirect-kept", "gh auth login --with-token < token.txt", "gh auth login --with-token < token.txt"},
		{"mysql-prompt-kept", "mysql -h db -P 3306 -u root -p app", "mysql -h db -P 3306 -u root -p app"},
		{"port-flags-kept", "ssh -p 2222 bob@host && psql -p 5432 -h db", "ssh -p 2222 bob@host && psql -p 5432 -h db"},
		{"other-command-p-kept", "docker run -p 8080:80 nginx", "docker run -p 8080:80 nginx"},
		{"prose-flag-capital-kept", "pass the --token Flag, or the --password File.", "pass the --token Flag, or the --password File."},
		{"build-secret-spec-kept", "docker build --secret id=npm,src=/run/.npmrc .", "docker build --secret id=npm,src=/run/.npmrc ."},
		{"file-flags-kept", "app --password-file /etc/pw --token-file t.txt --api-key-file k --password-stdin", "app --password-file /etc/pw --token-file t.txt --api-key-file k --password-stdin"},
		{"other-a-p-flags-kept", "ls -a x; tar -a -cf x.tgz d; git commit -a -m msg; grep -p x f; mysql -P 3306 -u root -p", "ls -a x; tar -a -cf x.tgz d; git commit -a -m msg; grep -p x f; mysql -P 3306 -u root -p"},
		{"placeholder-kept", "app --token $TOKEN --password <password> --api-key YOUR_API_KEY", "app --token $TOKEN --password <password> --api-key YOUR_API_KEY"},
		{"escaped-break-kept", `use the --password option\nthen ok`, `use the --password option\nthen ok`},
		{"single-dash-secret", "app -token Xy7Qw9Zk2 -client_secret Ab3-cD4", "app -token " + m + " -client_secret " + m},
	})
}

// TestRedactPrivateKeyWrapped: a private key block whose BEGIN or END
// line a chat's wrapping broke, or written with blanks inside its dashes,
// is replaced. red62: the first three were stored whole.
func TestRedactPrivateKeyWrapped(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"begin-wrapped", "key:\n-----BEGIN RSA PRIVATE\nKEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHC\n-----END RSA PRIVATE KEY-----\nbye", "key:\n" + m + "\nbye"},
		{"begin-wrapped-after-begin", "-----BEGIN\nRSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHC\n-----END RSA PRIVATE KEY-----", m},
		{"spaced-dashes", "----- BEGIN RSA PRIVATE KEY -----\r\nMIIEowIBAAKCAQEAu1SU1LfVLPHC\r\n----- END RSA PRIVATE KEY -----\r\nbye", m + "\r\nbye"},
		{"end-wrapped", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2\n-----END EC PRIVATE\nKEY-----\nbye", m + "\nbye"},
		{"glued-type", "-----BEGIN RSA PPRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PPRIVATE KEY-----", m},
		{"public-key-kept", "-----BEGIN RSA PUBLIC\nKEY-----\nMIIBCgKCAQEA\n-----END RSA PUBLIC KEY-----", "-----BEGIN RSA PUBLIC\nKEY-----\nMIIBCgKCAQEA\n-----END RSA PUBLIC KEY-----"},
		{"prose-kept", "Begin with the private key file, then the certificate.", "Begin with the private key file, then the certificate."},
	})
}

// TestRedactCommandLinePorts: a port mapping after -p is no password,
// also after a container named mysql (docker run --name mysql
// -p3306:3306 was stored -p[REDACTED] before red64), and so are the
// other -p flags that take a port or none.
func TestRedactCommandLinePorts(t *testing.T) {
	checkRedact(t, []redactCase{
		{"docker-mysql-glued", "docker run --name mysql -p3306:3306 mysql:8", "docker run --name mysql -p3306:3306 mysql:8"},
		{"docker-mysql-ip-proto", "docker run --name mysql -p127.0.0.1:3306:3306/tcp -d mysql", "docker run --name mysql -p127.0.0.1:3306:3306/tcp -d mysql"},
		{"docker-mysql-range", "podman run --name mariadb -p8000-8010:8000-8010 mariadb", "podman run --name mariadb -p8000-8010:8000-8010 mariadb"},
		{"mysql-port-mapping", "mysql -p3306:3306", "mysql -p3306:3306"},
		{"docker-mysql-blank", "docker run --name mysql -p 3306:3306 mysql:8", "docker run --name mysql -p 3306:3306 mysql:8"},
		{"docker-first", "docker run -p3306:3306 mysql", "docker run -p3306:3306 mysql"},
		{"docker-blank", "docker run -p 8080:80 nginx", "docker run -p 8080:80 nginx"},
		{"ssh-ls", "ssh -p 2222 bob@host; ls -p /etc", "ssh -p 2222 bob@host; ls -p /etc"},
	})
}

// TestRedactCommandLineLowercase: after a flag named for a password, or
// a short flag that takes one, a password of lowercase letters is
// replaced too (red64: --password correcthorse was stored in clear, as
// only a digit, a capital or a symbol made a bare value a secret); a
// word of prose about the flag stays. After mysql -p and a blank, mysql
// reads the word as the database: a database name stays, a word no
// database name is written as (a quoted one, a mix of lowercase,
// capitals and digits) is replaced.
func TestRedactCommandLineLowercase(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"password-lowercase", "app --user bob --password correcthorse --verbose", "app --user bob --password " + m + " --verbose"},
		{"passphrase-lowercase", "age-keygen --passphrase swordfish", "age-keygen --passphrase " + m},
		{"storepass-lowercase", "keytool -list -keystore ks.jks -storepass changeit", "keytool -list -keystore ks.jks -storepass " + m},
		{"sshpass-lowercase", "sshpass -p hunter ssh bob@host", "sshpass -p " + m + " ssh bob@host"},
		{"mysql-glued-lowercase", "mysql -u root -pcorrecthorse app", "mysql -u root -p" + m + " app"},
		{"mysql-blank-secret", "mysql -u root -p Sup3rS3cret app", "mysql -u root -p " + m + " app"},
		{"mysql-blank-quoted", "mysql -u root -p 'correct horse' app", "mysql -u root -p '" + m + "' app"},
		{"mysql-blank-database-kept", "mysql -u root -p app_prod < dump.sql; mysql -p MyDB", "mysql -u root -p app_prod < dump.sql; mysql -p MyDB"},
		{"prose-kept", "the --password flag is required; give --passphrase when the key has one", "the --password flag is required; give --passphrase when the key has one"},
		{"token-lowercase-kept", "use --token abcdef with --api-key", "use --token abcdef with --api-key"},
	})
}

// TestRedactCommandLineOpenSSL: sshpass's password glued to -p, and
// openssl's password given as the source pass: (-pass, -passin,
// -passout, pkcs12's -password) or after enc's -k, are replaced; the
// other sources (env:, file:, fd:, stdin), which name where the password
// is, stay, and so do prose about pass: and a -p of the command sshpass
// runs (ssh's port). red66: every replaced row was stored in clear, and
// ssh's port after sshpass -f was replaced.
func TestRedactCommandLineOpenSSL(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"sshpass-glued", "sshpass -phunter ssh bob@host", "sshpass -p" + m + " ssh bob@host"},
		{"sshpass-glued-after-opts", "sshpass -v -P 'assphrase' -pSup3r! scp f bob@host:", "sshpass -v -P 'assphrase' -p" + m + " scp f bob@host:"},
		{"sshpass-glued-quoted", "sshpass -p'hunter 2' ssh bob@host", "sshpass -p'" + m + "' ssh bob@host"},
		{"openssl-pass", "openssl enc -aes256 -pass pass:hunter -in f -out f.enc", "openssl enc -aes256 -pass pass:" + m + " -in f -out f.enc"},
		{"openssl-passin-passout", "openssl rsa -in k.pem -passin pass:Old-Pw1 -passout 'pass:new pw' -aes256", "openssl rsa -in k.pem -passin pass:" + m + " -passout 'pass:" + m + "' -aes256"},
		{"openssl-pkcs12-password", "openssl pkcs12 -export -in c.pem -out c.p12 -password pass:changeit", "openssl pkcs12 -export -in c.pem -out c.p12 -password pass:" + m},
		{"openssl-equals-quoted-value", `openssl req -new -passout=pass:"s3cret pw" -key k`, `openssl req -new -passout=pass:"` + m + `" -key k`},
		{"easyrsa", "./easyrsa --passin=pass:hunter2 --passout=pass:hunter3 build-ca", "./easyrsa --passin=pass:" + m + " --passout=pass:" + m + " build-ca"},
		{"openssl-k", "openssl enc -d -aes-256-cbc -k hunter -in f.enc", "openssl enc -d -aes-256-cbc -k " + m + " -in f.enc"},
		{"openssl-cipher-k", "echo hi | openssl aes-256-cbc -a -salt -pbkdf2 -k 'Sup3r S3cret'", "echo hi | openssl aes-256-cbc -a -salt -pbkdf2 -k '" + m + "'"},
		{"sources-kept", "openssl enc -aes256 -pass env:PW -in f; openssl rsa -passin file:/run/secrets/pw -passout fd:3; openssl req -passin stdin; openssl pkcs12 -password env:P12_PW", "openssl enc -aes256 -pass env:PW -in f; openssl rsa -passin file:/run/secrets/pw -passout fd:3; openssl req -passin stdin; openssl pkcs12 -password env:P12_PW"},
		{"references-kept", `openssl enc -pass "pass:$PW" -k "$KEY" -passin pass:${PW} -passout pass:<password>`, `openssl enc -pass "pass:$PW" -k "$KEY" -passin pass:${PW} -passout pass:<password>`},
		{"prose-kept", "use -pass pass:… in scripts, or -passin pass:... once", "use -pass pass:… in scripts, or -passin pass:... once"},
		{"kfile-kept", "openssl enc -aes256 -kfile pw.txt -in f; curl -k https://x; make -k all", "openssl enc -aes256 -kfile pw.txt -in f; curl -k https://x; make -k all"},
		{"sshpass-command-port-kept", "sshpass -f ~/.pw ssh -p 2222 bob@host; sshpass -e ssh -p2222 bob@host", "sshpass -f ~/.pw ssh -p 2222 bob@host; sshpass -e ssh -p2222 bob@host"},
	})
}

// TestRedactCommandLineKeys: docker login's password glued to -p or
// after -p=, and openssl's raw keys (enc -K hex, dgst -hmac X, -macopt
// key:X or hexkey:hex) are replaced; --password-stdin, a reference, -iv
// (the IV is no secret), prose about the flags and a port mapping of a
// later command stay. red67: every replaced row was stored in clear.
func TestRedactCommandLineKeys(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"docker-login-glued", "docker login -u bob -pS3cretPass registry.example.com", "docker login -u bob -p" + m + " registry.example.com"},
		{"docker-login-equals", "docker login -p=S3cretPass ghcr.io", "docker login -p=" + m + " ghcr.io"},
		{"podman-login-glued-lowercase", "podman login -u bob -pcorrecthorse quay.io", "podman login -u bob -p" + m + " quay.io"},
		{"docker-login-blank", "docker login -p S3cretPass registry.example.com", "docker login -p " + m + " registry.example.com"},
		{"docker-login-password", "docker login -u bob --password S3cretPass registry.example.com", "docker login -u bob --password " + m + " registry.example.com"},
		{"openssl-K", "openssl enc -aes-256-cbc -K 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f -iv 0f0e0d0c0b0a09080706050403020100 -in a -out b",
			"openssl enc -aes-256-cbc -K " + m + " -iv 0f0e0d0c0b0a09080706050403020100 -in a -out b"},
		{"openssl-hmac", "openssl dgst -sha256 -hmac s3cr3tkey file.txt; openssl dgst -hmac \"my secret key\" f", "openssl dgst -sha256 -hmac " + m + " file.txt; openssl dgst -hmac \"" + m + "\" f"},
		{"openssl-hmac-lowercase", "openssl sha256 -hmac swordfish f", "openssl sha256 -hmac " + m + " f"},
		{"openssl-macopt", "openssl dgst -sha256 -mac HMAC -macopt hexkey:0a0b0c0d0e0f1011 f; openssl mac -macopt key:Sup3rKey HMAC",
			"openssl dgst -sha256 -mac HMAC -macopt hexkey:" + m + " f; openssl mac -macopt key:" + m + " HMAC"},
		// red68: each secret option of one openssl command; before, the
		// first was replaced and the others kept.
		{"openssl-k-then-K", "openssl enc -aes-256-cbc -k hunter2pw -K 00112233445566778899aabbccddeeff -iv 0f0e0d0c0b0a09080706050403020100 -in a",
			"openssl enc -aes-256-cbc -k " + m + " -K " + m + " -iv 0f0e0d0c0b0a09080706050403020100 -in a"},
		{"openssl-hmac-then-macopt", "openssl dgst -sha256 -hmac s3cr3tkey -macopt hexkey:0a0b0c0d0e0f1011 f",
			"openssl dgst -sha256 -hmac " + m + " -macopt hexkey:" + m + " f"},
		{"openssl-quoted-semicolon-then-K", "openssl enc -k 'pw;with;semis' -K 00112233445566778899aabbccddeeff -in a; ls -K x",
			"openssl enc -k '" + m + "' -K " + m + " -in a; ls -K x"},
		{"openssl-reference-then-K", "openssl enc -k \"$PW\" -K 00112233445566778899aabbccddeeff -in a",
			"openssl enc -k \"$PW\" -K " + m + " -in a"},
		{"password-stdin-kept", "echo $PW | docker login -u bob --password-stdin registry.example.com", "echo $PW | docker login -u bob --password-stdin registry.example.com"},
		{"reference-kept", "docker login -u bob -p $PASSWORD ghcr.io; openssl dgst -hmac $HMAC_KEY f; openssl enc -K \"$KEY\" -in f", "docker login -u bob -p $PASSWORD ghcr.io; openssl dgst -hmac $HMAC_KEY f; openssl enc -K \"$KEY\" -in f"},
		{"iv-kept", "openssl enc -aes-256-cbc -iv 0f0e0d0c0b0a09080706050403020100 -pass env:PW", "openssl enc -aes-256-cbc -iv 0f0e0d0c0b0a09080706050403020100 -pass env:PW"},
		{"prose-kept", "use openssl -hmac with a key, or -K with hex", "use openssl -hmac with a key, or -K with hex"},
		// readme68 F6: skopeo's and podman's --creds USER:PASSWORD and
		// --credentials after a blank were stored in clear (only the '='
		// form was replaced).
		{"creds", "skopeo copy --creds alice:hunter2 docker://a docker://b", "skopeo copy --creds " + m + " docker://a docker://b"},
		{"creds-lowercase", "podman pull --src-creds alice:hunterpw quay.io/x", "podman pull --src-creds " + m + " quay.io/x"},
		// rev70: a password of 1 to 3 lowercase letters was kept.
		{"creds-short-lowercase", "skopeo copy --creds bob:abc docker://a docker://b", "skopeo copy --creds " + m + " docker://a docker://b"},
		{"creds-one-letter", "podman login --creds bob:x quay.io", "podman login --creds " + m + " quay.io"},
		{"credentials", "podman login --credentials 'alice:S3cret!' quay.io", "podman login --credentials '" + m + "' quay.io"},
		{"creds-example-kept", "skopeo copy --creds user:pass docker://a docker://b", "skopeo copy --creds user:pass docker://a docker://b"},
		{"creds-prose-kept", "pass --credentials to the tool, or see the --creds flag", "pass --credentials to the tool, or see the --creds flag"},
		// red70: openssl kdf's and pkeyutl's secrets, on one line or
		// over a backslash's line breaks, and a word after --credentials
		// were stored in clear.
		{"openssl-kdfopt-pass", "openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt pass:hunter2pw -kdfopt salt:NaCl PBKDF2",
			"openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt pass:" + m + " -kdfopt salt:NaCl PBKDF2"},
		{"openssl-kdfopt-key", "openssl kdf -keylen 16 -kdfopt digest:SHA256 -kdfopt key:Sup3rKey -kdfopt info:label HKDF",
			"openssl kdf -keylen 16 -kdfopt digest:SHA256 -kdfopt key:" + m + " -kdfopt info:label HKDF"},
		{"openssl-kdfopt-hexkey-continued", "openssl kdf -keylen 16 -kdfopt digest:SHA2-256 \\\n    -kdfopt hexkey:b74a149a161545 -kdfopt hexinfo:348a37a2 \\\n    -kdfopt hexpass:0a0b0c0d SSKDF",
			"openssl kdf -keylen 16 -kdfopt digest:SHA2-256 \\\n    -kdfopt hexkey:" + m + " -kdfopt hexinfo:348a37a2 \\\n    -kdfopt hexpass:" + m + " SSKDF"},
		{"openssl-pkeyopt-hexkey", "openssl pkeyutl -kdf HKDF -kdflen 32 -pkeyopt md:SHA256 -pkeyopt hexkey:0a0b0c0d0e0f -pkeyopt hexsalt:0102",
			"openssl pkeyutl -kdf HKDF -kdflen 32 -pkeyopt md:SHA256 -pkeyopt hexkey:" + m + " -pkeyopt hexsalt:0102"},
		{"credentials-lowercase", "podman login --credentials hunterpass quay.io", "podman login --credentials " + m + " quay.io"},
		{"openssl-kdfopt-reference-kept", "openssl kdf -keylen 16 -kdfopt key:\"$KEY\" -kdfopt salt:NaCl -kdfopt info:label HKDF",
			"openssl kdf -keylen 16 -kdfopt key:\"$KEY\" -kdfopt salt:NaCl -kdfopt info:label HKDF"},
		{"creds-user-kept", "skopeo copy --creds alice docker://a docker://b", "skopeo copy --creds alice docker://a docker://b"},
		// red71: the value of an openssl option's key:value pair ran to
		// the end of the line (the assignment rule's secret: X), and a
		// file's path after --credentials was replaced.
		{"openssl-pkeyopt-secret", "openssl pkeyutl -derive -kdf HKDF -kdflen 32 -pkeyopt secret:s3cr3tKey -pkeyopt salt:NaCl -in a -out b",
			"openssl pkeyutl -derive -kdf HKDF -kdflen 32 -pkeyopt secret:" + m + " -pkeyopt salt:NaCl -in a -out b"},
		{"openssl-kdfopt-hexsecret", "openssl kdf -keylen 16 -kdfopt hexsecret:0a0b0c0d0e0f -kdfopt hexsalt:0102 -kdfopt info:label HKDF",
			"openssl kdf -keylen 16 -kdfopt hexsecret:" + m + " -kdfopt hexsalt:0102 -kdfopt info:label HKDF"},
		{"kdfopt-secret-continued-line", "    -kdfopt secret:s3cr3tKey -kdfopt salt:NaCl HKDF", "    -kdfopt secret:" + m + " -kdfopt salt:NaCl HKDF"},
		{"kdfopt-secret-in-string", `log: "openssl kdf -kdfopt secret:s3cr3tKey -kdfopt salt:NaCl HKDF" rc=0`,
			`log: "openssl kdf -kdfopt secret:` + m + ` -kdfopt salt:NaCl HKDF" rc=0`},
		{"kdfopt-secret-reference-kept", "openssl kdf -kdfopt secret:$SECRET -kdfopt salt:NaCl HKDF", "openssl kdf -kdfopt secret:$SECRET -kdfopt salt:NaCl HKDF"},
		{"credentials-home-path-kept", "gcloud auth login --credentials ~/creds.json --quiet", "gcloud auth login --credentials ~/creds.json --quiet"},
		{"credentials-paths-kept", "t --creds $HOME/creds.json; t --credentials /home/Bob/creds-2024.json; t --password ~/pw.txt; t --credentials 'sa-key-2.json'",
			"t --creds $HOME/creds.json; t --credentials /home/Bob/creds-2024.json; t --password ~/pw.txt; t --credentials 'sa-key-2.json'"},
		{"token-slash-start", "vault login --token /u8Xk2Lm9aBq+Zx ok", "vault login --token " + m + " ok"},
		{"password-tilde-no-path", "t --password ~Hunter2 -v", "t --password " + m + " -v"},
		// red73: a file's path after '=' was replaced (the assignment
		// rule's), after a blank kept; a path and more is replaced whole.
		{"credentials-equals-path-kept", "tool --credentials=~/creds.json; t --token=./token.txt; t --password=\"/home/Bob/pw.txt\"",
			"tool --credentials=~/creds.json; t --token=./token.txt; t --password=\"/home/Bob/pw.txt\""},
		{"credentials-variable-path-kept", "export GOOGLE_APPLICATION_CREDENTIALS=/home/bob/sa-key.json", "export GOOGLE_APPLICATION_CREDENTIALS=/home/bob/sa-key.json"},
		{"credentials-equals-path-and-more", "t --credentials=~/x.json,password=hunter2 -v", "t --credentials=" + m + " -v"},
		{"password-variable-path", "password=~/pw.txt and secret: ./s.txt", "password=" + m + " and secret: " + m},
		// red70: a flag starting with p glued to -p is no password.
		{"login-pretty-kept", "docker login -u bob -pretty registry; docker login -password-stdin registry",
			"docker login -u bob -pretty registry; docker login -password-stdin registry"},
		{"later-command-kept", "docker login registry && docker run -p8080:80 nginx; docker login -u bob ghcr.io; docker run -p3306:3306 mysql",
			"docker login registry && docker run -p8080:80 nginx; docker login -u bob ghcr.io; docker run -p3306:3306 mysql"},
	})
}
