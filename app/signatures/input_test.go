package signatures

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

func TestNormalizePhone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"+61400000001", "+61400000001", true},
		{"+61 (400) 000-001", "+61400000001", true},
		{"+1.415.555.0100", "+14155550100", true},
		{"+49 30 1234567", "+49301234567", true},
		{"+1234567", "", false},          // 7 digits
		{"+12345678", "+12345678", true}, // 8 digits
		{"+123456789012345", "+123456789012345", true},
		{"+1234567890123456", "", false}, // 16 digits
		{"0400 000 001", "", false},      // no country code
		{"61 400 000 001", "", false},
		{"+61 400 000 001 ext 2", "", false},
		{"++61400000001", "", false},
		{"+61+400000001", "", false},
		{"+６１４０００００００１", "", false}, // digits that are not ASCII
		{"+", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			got, ok := normalizePhone(tc.in)
			is.Equal(ok, tc.ok) // accepted
			if ok {
				is.Equal(got, tc.want) // E.164
			}
		})
	}
}

func FuzzNormalizePhone(f *testing.F) {
	for _, s := range []string{"+61 (400) 000-001", "0400", "+", "+1-2-3-4-5-6-7-8", "+61\t400000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := normalizePhone(s)
		if !ok {
			return
		}
		if len(got) < 9 || len(got) > 16 || got[0] != '+' || strings.Trim(got[1:], "0123456789") != "" {
			t.Fatalf("%q normalised to %q", s, got)
		}
	})
}

func TestCheckInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		subs  []ports.SigningSubmitter
		msg   signing.Message
		field string // "" when valid
	}{
		{"valid", []ports.SigningSubmitter{{Email: "a@client.example", Phone: "+61 400 000 001"}}, signing.Message{Subject: "S", Body: "B"}, ""},
		{"a body alone", []ports.SigningSubmitter{{Email: "a@client.example"}}, signing.Message{Body: "B"}, ""},
		{"a subject alone", []ports.SigningSubmitter{{Email: "a@client.example"}}, signing.Message{Subject: "S"}, "message.body"},
		{"a blank body", []ports.SigningSubmitter{{Email: "a@client.example"}}, signing.Message{Subject: "S", Body: "  "}, "message.body"},
		{"a bad phone", []ports.SigningSubmitter{{Email: "a@client.example"}, {Email: "b@client.example", Phone: "555-0100"}}, signing.Message{}, "x[1].phone"},
		{"an address without a top-level domain", []ports.SigningSubmitter{{Email: "a@client"}}, signing.Message{}, "x[0].email"},
		{"a one-letter top-level domain", []ports.SigningSubmitter{{Email: "a@client.x"}}, signing.Message{}, "x[0].email"},
		{"an address with non-ASCII", []ports.SigningSubmitter{{Email: "zoë@client.example"}}, signing.Message{}, "x[0].email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			f := domain.FieldErrors{}
			out := checkSubmitters("x", tc.subs, f)
			checkMessage(tc.msg, f)
			if tc.field == "" {
				is.NoErr(f.Err()) // valid
				if tc.subs[0].Phone != "" {
					is.Equal(out[0].Phone, "+61400000001") // normalised
				}
				return
			}
			is.True(len(f[tc.field]) > 0) // names the field
		})
	}
}
