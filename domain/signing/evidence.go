package signing

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Evidence is everything the signed evidence of a completed submission
// states (docs/decisions.md §13): what the stamp on each PDF says, what the
// audit certificate lists, and the summary sealed into the signature.
// It decides the words; the PDF adapter only lays them out.
type Evidence struct {
	FirmName     string
	ContractUUID string
	ContractName string
	SubmissionID string
	CompletedAt  time.Time
	Documents    []EvidenceDocument
	Signers      []EvidenceSigner
	Events       []EvidenceEvent
}

// EvidenceDocument is an original document of the signing.
type EvidenceDocument struct {
	FileName    string
	ContentType string
	Size        int64
	SHA256      string
	// PDF is true for a PDF original, which is stamped and combined.
	PDF bool
	// Excluded is set when a PDF original could not be read as a PDF, or
	// is TooLarge: it stays listed with its hash but is not in the
	// combined PDF.
	Excluded bool
	// TooLarge is set when a PDF original decodes to more than evidence
	// stamps (its streams expand too much).
	TooLarge bool
}

// EvidenceSigner is one signing party as the certificate shows it.
type EvidenceSigner struct {
	Name          string
	Email         string
	Role          string
	SignedName    string // the name typed to sign
	IP            string // the client address as the server saw it
	UserAgent     string
	SentAt        *time.Time
	OpenedAt      *time.Time
	SignedAt      *time.Time
	DeclinedAt    *time.Time
	DeclineReason string
}

// EvidenceEvent is one line of the event log.
type EvidenceEvent struct {
	At   time.Time
	Text string
}

// EvidenceSummary is what the signature seals about the signing, so a
// verifier can tell from the file alone for which contract, by whom and
// when it was signed.
type EvidenceSummary struct {
	ContractUUID string
	ContractName string
	SignedAt     time.Time
	Signers      []SummarySigner
}

// SummarySigner is a signer of an EvidenceSummary.
type SummarySigner struct {
	Name     string
	Email    string
	SignedAt time.Time
}

// Verification is the answer to "is this an unmodified Counsel-signed
// document?".
type Verification struct {
	// Valid is true only when the signature verifies, covers the whole
	// file and was made with this server's certificate.
	Valid bool
	// CounselDocument is true when the file is a combined PDF this
	// server stored.
	CounselDocument bool
	ContractUUID    string
	SignedAt        *time.Time
	Signers         []SummarySigner
	SHA256          string
	// Reason says why the file is not valid, or what was checked.
	Reason string
}

// Summary returns the summary sealed into the signature.
func (e Evidence) Summary() EvidenceSummary {
	s := EvidenceSummary{ContractUUID: Line(e.ContractUUID, MaxNameLen), ContractName: Line(e.ContractName, MaxFileNameLen), SignedAt: e.CompletedAt.UTC(), Signers: []SummarySigner{}}
	for _, p := range e.Signers {
		if p.SignedAt != nil {
			s.Signers = append(s.Signers, SummarySigner{Name: Line(p.displayName(), MaxNameLen), Email: Line(p.Email, MaxEmailLen), SignedAt: p.SignedAt.UTC()})
		}
	}
	return s
}

func (p EvidenceSigner) displayName() string {
	if p.SignedName != "" {
		return p.SignedName
	}
	return p.Name
}

// evidenceTime is how the evidence writes a time: UTC to the second.
func evidenceTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// StampLines is the text stamped on the last page of every PDF: a
// signature mark, the typed name, role and time of each signer. Every
// value is one Line.
func (e Evidence) StampLines() []string {
	lines := []string{"Electronically signed through " + e.firm() + " - contract " + Line(e.ContractUUID, MaxNameLen)}
	for _, p := range e.Signers {
		if p.SignedAt == nil {
			continue
		}
		lines = append(lines, fmt.Sprintf("/s/ %s (%s), %s, signed %s", Line(p.displayName(), MaxNameLen),
			Line(p.Email, MaxEmailLen), Line(p.Role, MaxNameLen), evidenceTime(p.SignedAt)))
	}
	return lines
}

// firm is the firm's name as the evidence writes it.
func (e Evidence) firm() string {
	if f := Line(e.FirmName, MaxNameLen); f != "" {
		return f
	}
	return "Counsel"
}

// CertificateWidth is the longest line of the audit certificate, in
// characters; longer values are wrapped.
const CertificateWidth = 96

// CertificateLines is the text of the audit certificate, wrapped to
// CertificateWidth. Every value is one Line, so none can add a line or a
// field; a long one wraps onto continuation lines indented deeper than
// any field.
func (e Evidence) CertificateLines() []string {
	var out []string
	add := func(s string) { out = append(out, wrap(s, CertificateWidth)...) }
	add("AUDIT CERTIFICATE - " + e.firm())
	add("")
	add("Contract: " + Line(e.ContractName, MaxFileNameLen))
	add("Contract UUID: " + Line(e.ContractUUID, MaxNameLen))
	add("Signing submission: " + Line(e.SubmissionID, MaxNameLen))
	add("Completed: " + evidenceTime(&e.CompletedAt))
	add("")
	add("DOCUMENTS")
	for i, d := range e.Documents {
		note := ""
		switch {
		case d.TooLarge:
			note = " - not in the combined PDF: its content expands too much to be stamped"
		case d.Excluded:
			note = " - not in the combined PDF: it could not be read as a PDF"
		case !d.PDF:
			note = " - not a PDF: listed here, not in the combined PDF"
		}
		add(fmt.Sprintf("%d. %s (%d bytes)%s", i+1, Line(d.FileName, MaxFileNameLen), d.Size, note))
		add("   SHA-256: " + Line(d.SHA256, MaxNameLen))
	}
	add("")
	add("SIGNERS")
	for i, p := range e.Signers {
		add(fmt.Sprintf("%d. %s <%s>, role: %s", i+1, Line(p.Name, MaxNameLen), Line(p.Email, MaxEmailLen), Line(p.Role, MaxNameLen)))
		if typed := Line(p.SignedName, MaxNameLen); typed != "" {
			add("   Typed signature: " + typed)
		}
		add("   IP address: " + orDash(Line(p.IP, MaxAddressLen)))
		add("   User agent: " + orDash(Line(p.UserAgent, MaxTextLen)))
		add("   Sent: " + evidenceTime(p.SentAt) + "   Opened: " + evidenceTime(p.OpenedAt))
		switch {
		case p.SignedAt != nil:
			add("   Signed: " + evidenceTime(p.SignedAt))
		case p.DeclinedAt != nil:
			add("   Declined: " + evidenceTime(p.DeclinedAt) + ", reason: " + orDash(Line(p.DeclineReason, MaxTextLen)))
		default:
			add("   Not signed")
		}
	}
	add("")
	add("EVENT LOG")
	events := append([]EvidenceEvent(nil), e.Events...)
	sort.SliceStable(events, func(i, j int) bool { return events[i].At.Before(events[j].At) })
	for _, ev := range events {
		add(evidenceTime(&ev.At) + "  " + Line(ev.Text, MaxTextLen))
	}
	add("")
	add("The combined PDF (the stamped documents, then this certificate) carries a digital signature")
	add("of " + e.firm() + " over the whole file. Check it at /verify or with any PDF reader.")
	return out
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// continuationIndent is how much deeper than its first line a wrapped
// line's continuations are indented: deeper than any field under a
// heading, so a continuation never reads as a field of its own.
const continuationIndent = 6

// wrap cuts s into lines of at most width characters, at spaces where it
// can; continuation lines are indented continuationIndent deeper than the
// first.
func wrap(s string, width int) []string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= width {
		return []string{s}
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	pad := strings.Repeat(" ", min(indent+continuationIndent, width/2))
	var out []string
	line := []rune(s)
	for len(line) > width {
		cut := width
		for i := width; i > indent+width/2; i-- {
			if line[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(line[:cut]), " "))
		line = []rune(pad + strings.TrimLeft(string(line[cut:]), " "))
	}
	return append(out, string(line))
}
