package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestRedactCardNumbers: a payment card number of each brand, together
// and grouped as printed, in prose, in JSON and after a JSON escape, is
// redacted, the text around it kept. walk40 #3: 4111111111111111 in a
// charge_card call's arguments was stored as written.
func TestRedactCardNumbers(t *testing.T) {
	r := engine.DefaultRedactor()
	for _, c := range []struct{ text, digits string }{
		{"pay with 4111111111111111 today", "4111111111111111"},    // Visa test card
		{"card: 4111 1111 1111 1111.", "1111 1111 1111"},           // printed groups
		{"card 4111-1111-1111-1111, exp 12/29", "1111-1111-1111"},  // dashes
		{"Visa 19: 4222222222222222224 ok", "4222222222222222224"}, // Visa, 19 digits
		{"mc 5555555555554444 ok", "5555555555554444"},             // Mastercard 51–55
		{"mc2 2223003122003222 ok", "2223003122003222"},            // Mastercard 2-series
		{"amex 378282246310005 ok", "378282246310005"},             // American Express
		{"amex 3782 822463 10005 ok", "822463"},                    // Amex 4-6-5
		{"discover 6011111111111117 ok", "6011111111111117"},       // Discover 6011
		{"discover 6445644564456445 ok", "6445644564456445"},       // Discover 644–649
		{"jcb 3530111333300000 ok", "3530111333300000"},            // JCB
		{"diners 36227206271667 ok", "36227206271667"},             // Diners 14
		{"unionpay 6200000000000005 ok", "6200000000000005"},       // UnionPay
		{`{"amount":42,"card":"4111111111111111","cvc":"123"}`, "4111111111111111"},
		{`{"stdout":"cards:\n4111111111111111\n"}`, "4111111111111111"},
		{"(4111111111111111)", "4111111111111111"},
		// Runs of zeros that are no round number: test cards that stay
		// redacted (walk44 F7's rule looks at the end only).
		{"visa 4000000000000002 ok", "4000000000000002"},
		{"unionpay19 6205500000000000004 ok", "6205500000000000004"},
		{"mc 5500000000000004 ok", "5500000000000004"},
		{"amex 370000000000002 ok", "370000000000002"},
		{"mc 5105105105105100 ok", "5105105105105100"},
		{"jcb five zeros 3530111333300000 ok", "3530111333300000"},
		{`{"card": 4.000000000000002e15}`, "4.000000000000002e15"},
		// red58 #2: a whole number printed as a float, in JSON that is
		// redacted as text (after a credential's value on its line) and
		// in prose.
		{`token=abc123def {"n":4111111111111111.0}`, "4111111111111111"},
		{"total 4111111111111111.00 paid", "4111111111111111"},
	} {
		got := r.Redact(c.text)
		if strings.Contains(got, c.digits) || !strings.Contains(got, engine.RedactionMark) {
			t.Errorf("%q redacted to %q", c.text, got)
		}
		if strings.HasPrefix(c.text, "{") && !json.Valid([]byte(got)) {
			t.Errorf("%q: not JSON after redaction: %q", c.text, got)
		}
	}
}

// TestRedactCardLookAlikes: digit strings that are not card numbers stay:
// the wrong check digit, no brand's range or length, timestamps, phone
// numbers, ids, ISBNs, IMEIs, IBANs, decimals, numbers glued to a word.
func TestRedactCardLookAlikes(t *testing.T) {
	r := engine.DefaultRedactor()
	for _, s := range []string{
		"order 4111111111111112 shipped",                // Luhn fails
		"ts=1733433600000",                              // Unix milliseconds
		"ts=1733433600000000 µs",                        // microseconds
		"ns 1733433600000000000",                        // nanoseconds
		"call +4915112345678 or 4915112345678",          // phone numbers (Luhn-valid, 13 digits, Visa's old length)
		"tel 0044 7700 9001 2345",                       // grouped digits, no brand
		"snowflake 1180123456789012345",                 // Discord/Twitter id
		"ISBN 9780306406157",                            // ISBN-13
		"IMEI 490154203237518",                          // Luhn-valid, 15 digits, not Amex
		"IBAN DE89 3704 0044 0532 0130 00",              // grouped, 18 digits from 37
		"score 0.4111111111111111",                      // a decimal's fraction
		"x 4111111111111111.5",                          // a decimal
		"x 4111111111111111.05 and 4111111111111111.50", // decimals with a zero
		"41111111111111111111",                          // 20 digits
		"ORD4111111111111111 and id_4111111111111111",   // glued to a word
		"sha 4111111111111111abc",                       // part of a hex word
		`{"embedding":[0.4111111111111111,-0.5555555555554444]}`,
		"2024-12-05 21:59:59.123456789",
		"amount 1234567890123 cents",
		// walk41 #2: rows of four-digit numbers in a tool's output, each
		// with four groups that pass the checks (4023 2746 7357 3214 alone
		// is a Visa number by Luhn and range).
		"4023 2746 7357 3214 8983",
		"totals: 4023 2746 7357 3214 8983 1200\n",
		"0042 4023 2746 7357 3214 8983",
		"4023-2746-7357-3214-8983",
		"1200 0042 7700 9001 2345 4023 2746 7357 3214", // its last four groups pass alone
		// walk44 F7: round numbers that pass the Luhn check and start like
		// a card (a float printed in full, a size): seven zeros or more
		// end them, no card number does.
		"4200000000000000",
		"size 5520000000000000 bytes",
		"limit 4012345080000000", // seven zeros: nine digits of sixteen
		`{"n": 4.2e15, "id": 1234567890123}`,
		`{"n": 4200000000000000}`,
		`{"total": 3.72e14, "id": 1234567890123}`,
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("not a card number:\n  %q\n  -> %q", s, got)
		}
	}
}

// TestAppendCardNumberArguments stores walk40 #3's charge_card call: the
// card number is not stored, as a string or as a JSON number.
func TestAppendCardNumberArguments(t *testing.T) {
	ctx := t.Context()
	e := enginetest.MustOpen(t, engine.Config{})
	calls := []engine.ToolCall{
		{ID: "c1", Name: "charge_card", Arguments: json.RawMessage(`{"amount":42,"card":"4111111111111111","api_key":"sk-proj-` + rep("Xy12", 40) + `"}`)},
		{ID: "c2", Name: "charge_card", Arguments: json.RawMessage(`{"amount":42,"card":5555555555554444}`)},
	}
	msgs := []engine.Message{{Role: engine.RoleAssistant, ToolCalls: calls},
		{Role: engine.RoleTool, ToolCallID: "c1", Name: "charge_card", Content: `{"charged":"4111 1111 1111 1111"}`},
		{Role: engine.RoleTool, ToolCallID: "c2", Name: "charge_card", Content: "ok"}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "t", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ms)
	for _, pan := range []string{"4111111111111111", "5555555555554444", "1111 1111 1111"} {
		if strings.Contains(string(b), pan) {
			t.Errorf("%s stored: %s", pan, b)
		}
	}
	if !strings.Contains(string(b), `"amount":42`) {
		t.Errorf("the amount is lost: %s", b)
	}
}
