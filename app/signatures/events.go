package signatures

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/mail"
	"counsel/domain/signing"
	"counsel/ports"
)

// report is what one provider event means for its contract.
type report struct {
	// key names the event within its submission; a key already recorded
	// for the contract makes the event a repeat.
	key string
	// target is the status the event asks for; 0 for a signer's progress.
	target contract.Status
	// signer is true for an event about one signer, which is worth a line
	// in the history even when it changes no status.
	signer  bool
	details string
}

// interpret reads an event; ok is false for a kind this service does not
// act on.
func interpret(e signing.Event) (r report, ok bool) {
	who := strings.TrimSpace(e.SubmitterEmail)
	if who == "" {
		who = "a signer"
	}
	sub := fmt.Sprintf("(submission %s)", e.SubmissionID)
	email := strings.ToLower(strings.TrimSpace(e.SubmitterEmail))
	switch e.Kind {
	case signing.EventSubmitterCompleted:
		r = report{key: "completed:" + email, signer: true, details: fmt.Sprintf("%s signed %s", who, sub)}
		if e.AllCompleted {
			r.target = contract.Signed
			r.details = fmt.Sprintf("%s signed; every party has signed %s", who, sub)
		}
	case signing.EventSubmitterDeclined:
		reason := strings.Join(strings.Fields(e.Reason), " ")
		if reason == "" {
			reason = "no reason given"
		}
		if n := 1000; len(reason) > n {
			reason = strings.ToValidUTF8(reason[:n], "") + "..."
		}
		r = report{key: "declined:" + email, target: contract.Declined, signer: true,
			details: fmt.Sprintf("%s declined %s: %s", who, sub, reason)}
	case signing.EventSubmissionCompleted:
		r = report{key: signing.EventSubmissionCompleted, target: contract.Signed, details: "every party has signed " + sub}
	case signing.EventSubmissionExpired:
		r = report{key: signing.EventSubmissionExpired, target: contract.Expired, details: "the submission expired " + sub}
	default:
		return r, false
	}
	return r, true
}

// ApplySigningEvent applies one event of the signing provider to the
// contract whose digitalContractSubmissionId is e.SubmissionID, with the
// actor "signing provider": every party signed -> Signed (isSigned),
// a party declined -> Declined (the reason in the audit details), the
// submission expired -> Expired, each with a signingEvent audit entry; a
// signer's signature alone is a signingEvent entry without a status
// change. A repeated event changes nothing and writes no entry. An event
// for a submission no contract has (an older submission, another system
// sharing the DocuSeal account) is logged and accepted: it returns nil.
// Only a failure to read or write the database is returned. With
// evidence configured, EventSubmissionCompleted then makes the signed
// evidence (a failure is logged; ProduceEvidence retries it).
//
// It is the EventSink of the embedded signer, called after the signer's
// own commit, and must not be called inside a write transaction.
func (s *Service) ApplySigningEvent(ctx context.Context, e signing.Event) error {
	r, ok := interpret(e)
	if !ok || strings.TrimSpace(e.SubmissionID) == "" {
		s.d.Logger.InfoContext(ctx, "signing event ignored", "kind", e.Kind, "submission", e.SubmissionID)
		return nil
	}
	now := s.d.Clock.Now()
	var refused error
	ctx, fx := ports.WithEffects(ctx)
	c, applied, err := s.d.Signing.UpdateBySubmission(ctx, e.SubmissionID, r.key, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		var entries []contract.AuditEntry
		from := c.Status
		entries, refused = decide(c, r, now)
		if len(entries) > 0 {
			c.UpdatedAt = now
		}
		fx.Add(s.events(ctx, *c, entries)...)
		if c.Status != from {
			// The owner's notice is written with the change, or not at all.
			if m, ok := s.ownerNotice(ctx, *c, e); ok {
				fx.Add(m)
			}
		}
		return entries, nil
	})
	switch {
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		s.d.Logger.WarnContext(ctx, "signing event for a submission no contract has", "kind", e.Kind, "submission", e.SubmissionID, "template", e.TemplateID)
		return nil
	case err != nil:
		return fmt.Errorf("apply signing event %s of submission %s: %w", e.Kind, e.SubmissionID, err)
	case !applied:
		s.d.Logger.DebugContext(ctx, "signing event repeated; nothing to do", "kind", e.Kind, "submission", e.SubmissionID, "contract", c.ID)
	case refused != nil:
		s.d.Logger.WarnContext(ctx, "signing event does not fit the contract's status; status left unchanged",
			"kind", e.Kind, "submission", e.SubmissionID, "contract", c.ID, "status", c.Status, "err", refused)
	default:
		s.d.Logger.InfoContext(ctx, "signing event applied", "kind", e.Kind, "submission", e.SubmissionID, "contract", c.ID, "status", c.Status)
	}
	if e.Kind == signing.EventSubmissionCompleted && s.d.Evidence.Source != nil {
		// In the flow that made the contract Signed; a failure is
		// retried by ProduceEvidence with backoff, as the submission stays
		// pending, until its attempts run out.
		if _, err := s.produceEvidence(ctx, e.SubmissionID); err != nil {
			s.d.Logger.ErrorContext(ctx, "signed evidence not made; retried with backoff", "submission", e.SubmissionID, "err", err)
		}
	}
	return nil
}

// ownerNotice is the email to c's owner for a provider event that ended
// its signing (docs/decisions.md §16): declined (with the signer and the
// reason), expired, or signed by every party; ok is false for any other
// status, and for an owner unknown, inactive or without an email.
func (s *Service) ownerNotice(ctx context.Context, c contract.Contract, e signing.Event) (ports.Mail, bool) {
	var o mail.Outcome
	switch c.Status {
	case contract.Declined:
		o = mail.Declined
	case contract.Expired:
		o = mail.Expired
	case contract.Signed:
		o = mail.Completed
	default:
		return ports.Mail{}, false
	}
	if c.OwnerID == 0 || s.d.Users == nil {
		return ports.Mail{}, false
	}
	u, err := s.d.Users.User(ctx, c.OwnerID)
	if err != nil || !u.Active || strings.TrimSpace(u.Email) == "" {
		s.d.Logger.InfoContext(ctx, "no owner to notify", "contract", c.ID, "owner", c.OwnerID, "err", err)
		return ports.Mail{}, false
	}
	m := mail.OwnerNotice(s.d.MailLinks, mail.Contract{ID: c.ID, Name: c.Name, Status: c.Status.String()}, o, e.SubmitterEmail, e.Reason)
	return ports.Mail{To: u.Email, Subject: m.Subject, Kind: m.Kind, Text: m.Text, HTML: m.HTML}, true
}

// decide applies report r to c at now and returns the audit entries, and
// the state machine's refusal when the status could not change. An event
// whose outcome the contract already has (submission.completed after the
// last signer's form.completed) writes nothing, unless it is about a
// signer.
func decide(c *contract.Contract, r report, now time.Time) ([]contract.AuditEntry, error) {
	progress := func(details string) []contract.AuditEntry {
		return []contract.AuditEntry{{Action: contract.ActionSigningEvent, Actor: contract.ActorSigningProvider, At: now, Details: details}}
	}
	if r.target == 0 || c.Status == r.target {
		if r.signer {
			return progress(r.details), nil
		}
		return nil, nil
	}
	ch, err := c.ChangeStatus(r.target, contract.ActorSigningProvider)
	if err != nil {
		// The contract moved on meanwhile (a user revised it after a
		// decline): the report is kept, the status is not forced.
		return progress(fmt.Sprintf("%s; the contract stays %s", r.details, c.Status)), err
	}
	return ch.Audit(contract.ActionSigningEvent, 0, now, r.details), nil
}

// withEvents wraps a contract change so that the entries it writes add
// their webhook events to fx, in its transaction.
func (s *Service) withEvents(ctx context.Context, fx *ports.Effects, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) func(c *contract.Contract) ([]contract.AuditEntry, error) {
	return func(c *contract.Contract) ([]contract.AuditEntry, error) {
		entries, err := fn(c)
		if err == nil {
			fx.Add(s.events(ctx, *c, entries)...)
		}
		return entries, err
	}
}

// events are the webhook events of a change of c that writes entries,
// each carrying c as the API returns it (rendered in the change's
// transaction).
func (s *Service) events(ctx context.Context, c contract.Contract, entries []contract.AuditEntry) []ports.Effect {
	return ports.RenderedContractEvents(ctx, s.d.Render, s.d.Logger, c, entries)
}
