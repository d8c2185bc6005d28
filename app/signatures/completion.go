package signatures

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"counsel/domain/contract"
	"counsel/domain/mail"
	"counsel/ports"
)

// DefaultAttachLimit is the most bytes of signed evidence (the combined
// PDF and the audit certificate together) a completion email attaches;
// past it the email carries signed links (docs/decisions.md §16).
const DefaultAttachLimit = 10 << 20

// CompletionLinkTTL is how long the signed links of a completion email
// whose evidence was too large to attach work.
const CompletionLinkTTL = 7 * 24 * time.Hour

// completionMails prepares the completion email of a submission's
// evidence to every signer and to the contract's owner (each address
// once): the combined PDF and the audit certificate attached, or signed
// links to them when together they exceed the attachment limit. The
// returned function builds the mails from the documents as stored (their
// ids make the links), inside the transaction that stores them.
func (s *Service) completionMails(ctx context.Context, c contract.Contract, rec ports.SigningEvidenceRecord,
	combined, audit []byte, docs []ports.NewDocument) (func([]contract.Document) []ports.Effect, error) {
	type recipient struct{ name, email, contractLink string }
	var to []recipient
	seen := map[string]bool{}
	add := func(r recipient) {
		key := strings.ToLower(strings.TrimSpace(r.email))
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		to = append(to, r)
	}
	for _, p := range rec.Signers {
		add(recipient{name: p.Name, email: p.Email})
	}
	if c.OwnerID != 0 && s.d.Users != nil {
		u, err := s.d.Users.User(ctx, c.OwnerID)
		if err == nil && u.Active {
			add(recipient{name: u.FullName(), email: u.Email,
				contractLink: s.d.MailLinks.Contract(c.ID)})
		}
	}
	limit := s.d.AttachLimit
	if limit <= 0 {
		limit = DefaultAttachLimit
	}
	attach := int64(len(combined)+len(audit)) <= limit
	var link func(string) string
	until := s.d.Clock.Now().Add(CompletionLinkTTL)
	if !attach {
		var err error
		if link, err = s.d.Evidence.Source.EvidenceLinks(ctx, rec.SubmissionID, until); err != nil {
			return nil, fmt.Errorf("links to the evidence of submission %s: %w", rec.SubmissionID, err)
		}
	}
	return func(stored []contract.Document) []ports.Effect {
		base := mail.SignedCopy{Title: c.Name, Attached: attach, LinksUntil: until}
		var atts []ports.Attachment
		if attach {
			atts = []ports.Attachment{
				{Name: docs[0].FileName, ContentType: contract.ContentTypePDF, Data: combined},
				{Name: docs[1].FileName, ContentType: contract.ContentTypePDF, Data: audit},
			}
		} else {
			for _, d := range stored {
				switch d.Kind {
				case contract.KindSigned:
					base.SignedURL = link(strconv.FormatInt(d.ID, 10))
				case contract.KindAudit:
					base.AuditURL = link(strconv.FormatInt(d.ID, 10))
				}
			}
		}
		out := make([]ports.Effect, 0, len(to))
		for _, r := range to {
			m := base
			m.Name, m.Email, m.ContractLink = r.name, r.email, r.contractLink
			msg := mail.Completion(m)
			out = append(out, ports.Mail{To: r.email, Subject: msg.Subject, Kind: msg.Kind, Text: msg.Text, HTML: msg.HTML, Attachments: atts})
		}
		return out
	}, nil
}
