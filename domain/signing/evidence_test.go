package signing

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/matryer/is"
)

func TestEvidenceWords(t *testing.T) {
	t.Parallel()
	sent := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	signed := sent.Add(90 * time.Minute)
	declined := sent.Add(time.Hour)
	ev := Evidence{
		ContractUUID: "u-1", ContractName: "Lease", SubmissionID: "3", CompletedAt: signed,
		Documents: []EvidenceDocument{
			{FileName: "a.pdf", Size: 10, SHA256: "aa", PDF: true},
			{FileName: "b.pdf", Size: 20, SHA256: "bb", PDF: true, Excluded: true},
			{FileName: "c.docx", Size: 30, SHA256: "cc"},
		},
		Signers: []EvidenceSigner{
			{Name: "Ana", Email: "ana@example.com", Role: "Tenant", SignedName: "Ana Silva", IP: "203.0.113.7", UserAgent: strings.Repeat("Agent ", 40), SentAt: &sent, SignedAt: &signed},
			{Name: "Bo", Email: "bo@example.com", Role: "Landlord", DeclinedAt: &declined, DeclineReason: "wrong rent"},
		},
		Events: []EvidenceEvent{{At: signed, Text: "second"}, {At: sent, Text: "first"}},
	}
	lines := ev.CertificateLines()
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"Counsel", "Contract UUID: u-1", "a.pdf (10 bytes)", "SHA-256: aa", "b.pdf (20 bytes) - not in the combined PDF",
		"c.docx (30 bytes) - not a PDF", "Ana <ana@example.com>, role: Tenant", "Typed signature: Ana Silva",
		"IP address: 203.0.113.7", "Signed: 2026-11-21 11:00:00 UTC", "Declined: 2026-11-21 10:30:00 UTC, reason: wrong rent",
		"IP address: -",
	} {
		t.Run(want, func(t *testing.T) {
			is.New(t).True(strings.Contains(text, want)) // the certificate says it
		})
	}
	is := is.New(t)
	is.True(strings.Index(text, "first") < strings.Index(text, "second")) // events in time order
	for _, l := range lines {
		is.True(utf8.RuneCountInString(l) <= CertificateWidth) // wrapped
	}
	stamp := ev.StampLines()
	is.Equal(len(stamp), 2) // a heading and the one signer who signed
	is.True(strings.HasPrefix(stamp[1], "/s/ Ana Silva (ana@example.com), Tenant, signed 2026-11-21 11:00:00 UTC"))
	sum := ev.Summary()
	is.Equal(sum.ContractUUID, "u-1")
	is.Equal(len(sum.Signers), 1) // only those who signed
	is.Equal(sum.Signers[0].Name, "Ana Silva")
}

func TestWrap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"aaaa bbbb cccc", 12, []string{"aaaa bbbb", "      cccc"}},
		{"   x: " + strings.Repeat("y", 20), 16, []string{"   x: yyyyyyyyyy", "        yyyyyyyy", "        yy"}},
		{"tab\there", 20, []string{"tab here"}},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			got := wrap(tc.in, tc.width)
			is.Equal(got, tc.want)
		})
	}
}
