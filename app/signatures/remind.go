package signatures

import (
	"context"
	"fmt"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// RemindSigners implements ports.SigningService.
func (s *Service) RemindSigners(ctx context.Context, contractID int64, submissionID string) (ports.RemindResult, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return ports.RemindResult{}, err
	}
	c, err := s.digital(ctx, contractID)
	if err != nil {
		return ports.RemindResult{}, err
	}
	notFound := domain.Errorf(domain.ENOTFOUND, "contract %d has no signing submission %q", contractID, submissionID)
	sub, err := s.d.Provider.GetSubmission(ctx, submissionID)
	switch {
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		return ports.RemindResult{}, notFound
	case err != nil:
		return ports.RemindResult{}, providerError(err, "")
	case sub.TemplateID != c.DigitalContractID:
		return ports.RemindResult{}, notFound
	}
	if s.d.Reminders == nil {
		return ports.RemindResult{}, domain.Errorf(domain.ENOTIMPLEMENTED, "the signing provider sends its own reminders: remind signers there")
	}
	res, err := s.d.Reminders.RemindNow(ctx, submissionID, p.UserID)
	if err != nil {
		if domain.ErrorCode(err) == domain.EINTERNAL {
			return res, fmt.Errorf("remind the signers of submission %s: %w", submissionID, err)
		}
		return res, err
	}
	s.d.Logger.InfoContext(ctx, "signers reminded", "contract", contractID, "submission", submissionID,
		"reminded", len(res.Reminded), "cooling_down", len(res.CoolingDown))
	return res, nil
}
