package signatures

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

// linkable reports whether a contract without a signing template may be
// linked to one: in the statuses that can be submitted for signing, and
// while it waits for signatures (tracked by hand so far). Linking a
// contract in any other status would give a digital contract a status it
// could not have reached.
func linkable(s contract.Status) bool {
	return contract.CheckSubmitForSigning(s) == nil || s == contract.WaitingForClientSignature
}

// CreateSubmissions implements ports.SigningService: the spec's
// SigningCreateSubmissionInput, for templates made in the provider itself
// (DocuSeal's form builder, or any DocuSeal Community Edition). Each entry
// of in.Submissions becomes one submission on in.TemplateID. Afterwards,
// in one transaction: a contract that can be submitted (Draft,
// ContractDesign, or Declined to resubmit) takes the template and the
// first submission and waits for signatures (audited submittedForSigning);
// a contract without a template that already waits for signatures is
// linked to them; any other contract is left as it is.
//
// The per-submitter sendEmail and sendSms are folded into the submission's
// (the providers take one setting per submission): email goes out when
// the request asks for it and some submitter has not turned it off; SMS
// when the request or any submitter asks for it.
func (s *Service) CreateSubmissions(ctx context.Context, contractID int64, in ports.CreateSubmissionsInput) ([]signing.Submission, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return nil, err
	}
	f := domain.FieldErrors{}
	templateID := strings.TrimSpace(in.TemplateID)
	if templateID == "" {
		f.Add("templateId", "templateId is required")
	}
	switch {
	case len(in.Submissions) == 0:
		f.Add("submission", "at least one submission is required")
	case len(in.Submissions) > maxSubmissions:
		f.Add("submission", fmt.Sprintf("at most %d submissions", maxSubmissions))
	}
	requests := make([]signing.NewSubmission, 0, len(in.Submissions))
	order := checkOrder(in.Order, f)
	for i, item := range in.Submissions {
		subs := checkSubmitters(fmt.Sprintf("submission[%d].submitters", i), item, f)
		email, sms := false, in.SendSMS
		for _, sub := range item {
			email = email || sub.SendEmail == nil || *sub.SendEmail
			sms = sms || (sub.SendSMS != nil && *sub.SendSMS)
		}
		requests = append(requests, signing.NewSubmission{TemplateID: templateID, Submitters: subs,
			SendEmail: in.SendEmail && email, SendSMS: sms, Order: order})
	}
	if err := f.Err(); err != nil {
		return nil, err
	}

	c, err := s.d.Contracts.Contract(ctx, contractID)
	if err != nil {
		return nil, err
	}
	if !c.IsDigital() && !linkable(c.Status) {
		return nil, domain.Errorf(domain.ECONFLICT, "cannot link a contract that is %s to signing: only Draft, ContractDesign, Declined or WaitingForClientSignature contracts can be", c.Status)
	}
	var created []signing.Submission
	for i, req := range requests {
		req.Name = c.Name
		got, err := s.d.Provider.CreateSubmission(ctx, req)
		if err != nil {
			if len(created) > 0 {
				s.d.Logger.WarnContext(ctx, "signing submissions created before a failure", "contract", contractID, "template", templateID, "created", submissionIDs(created))
			}
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				// Unknown to the provider, or (DocuSeal's 403) another
				// account's: for this firm there is no such template.
				return nil, &domain.Error{Code: domain.ENOTFOUND, Message: fmt.Sprintf("signing template %s not found at the signing provider", templateID), Err: err}
			}
			return nil, prefixFields(err, fmt.Sprintf("submission[%d].", i))
		}
		created = append(created, got...)
	}
	s.keepLinks(ctx, contractID, created)
	if len(created) == 0 {
		return nil, domain.Errorf(domain.EUPSTREAM, "the signing provider created no submission")
	}

	first := created[0]
	now := s.d.Clock.Now()
	ctx, fx := ports.WithEffects(ctx)
	_, err = s.d.Contracts.UpdateContract(ctx, contractID, s.withEvents(ctx, fx, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		details := fmt.Sprintf("submission %s (template %s), created with the template's own submission", first.ID, templateID)
		switch {
		case contract.CheckSubmitForSigning(c.Status) == nil:
			ch, err := c.SubmitForSigning(templateID, first.ID)
			if err != nil {
				return nil, err
			}
			c.UpdatedAt = now
			return ch.Audit(contract.ActionSubmittedForSigning, p.UserID, now, details), nil
		case !c.IsDigital():
			if !linkable(c.Status) {
				return nil, domain.Errorf(domain.ECONFLICT, "cannot link a contract that is %s to signing", c.Status)
			}
			c.DigitalContractID, c.DigitalContractSubmissionID, c.UpdatedAt = templateID, first.ID, now
			return []contract.AuditEntry{{Action: contract.ActionSubmittedForSigning, Actor: contract.ActorUser, ActorUserID: p.UserID, At: now,
				Details: "linked to " + details}}, nil
		}
		return nil, nil
	}))
	if err != nil {
		s.d.Logger.WarnContext(ctx, "signing submissions created at the provider but not linked to their contract",
			"contract", contractID, "template", templateID, "submissions", submissionIDs(created), "err", err)
		return nil, err
	}
	return created, nil
}

// prefixFields keys a provider's field errors (submitters[0].email) under
// the submission they belong to.
func prefixFields(err error, prefix string) error {
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.EINVALID || len(de.Fields) == 0 {
		return err
	}
	fields := map[string][]string{}
	for k, v := range de.Fields {
		fields[prefix+k] = v
	}
	return &domain.Error{Code: de.Code, Message: de.Message, Fields: fields, Err: de.Err}
}

func submissionIDs(subs []signing.Submission) string {
	ids := make([]string, len(subs))
	for i, s := range subs {
		ids[i] = s.ID
	}
	return strings.Join(ids, ",")
}
