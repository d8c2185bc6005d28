package contracts

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/domain/contract"
)

// The use cases below serve the web console: what a page may offer is
// decided here and by domain/contract, never by the page.

// StatusChoices returns contract id and the statuses the caller may move
// it to by hand, as the state machine says (contract.NextStatuses for a
// user): none without ContractEdit. ENOTFOUND.
func (s *Service) StatusChoices(ctx context.Context, id int64) (contract.Contract, []contract.Status, error) {
	p, err := account.Require(ctx, account.ContractView)
	if err != nil {
		return contract.Contract{}, nil, err
	}
	c, err := s.d.Store.Contract(ctx, id)
	if err != nil {
		return contract.Contract{}, nil, err
	}
	if !p.Can(account.ContractEdit) {
		return c, nil, nil
	}
	return c, contract.NextStatuses(c.Status, contract.ActorUser, c.IsDigital()), nil
}

// ExpiringWindow is how far ahead Counters looks for Signed contracts
// that end.
const ExpiringWindow = 30 * 24 * time.Hour

// NoticeStatuses are the statuses of the contracts whose notice date the
// home page counts: every status but Draft, Expired, Terminated and
// Archived, the contracts that may still need notice given.
var NoticeStatuses = []contract.Status{contract.ContractDesign, contract.WaitingForClientSignature, contract.Signed, contract.Declined}

// NoticeFilter selects the caller's (owner's) contracts in NoticeStatuses
// whose notice date falls within ExpiringWindow from now: the home
// page's "notice due" counter and the list it links to.
func NoticeFilter(owner int64, now time.Time) contract.Filter {
	now = now.UTC()
	soon := now.Add(ExpiringWindow)
	return contract.Filter{Statuses: NoticeStatuses, OwnerID: &owner, NoticeFrom: &now, NoticeTo: &soon}
}

// Counters counts, among the contracts the caller may read, the Drafts,
// those waiting for signatures, and the Signed ones whose end date falls
// within ExpiringWindow from now (the firm's: ContractView reads them
// all), and the caller's own contracts whose notice is due within that
// window (NoticeFilter). Each is the exact count of the list filter.
func (s *Service) Counters(ctx context.Context) (drafts, waiting, expiring, noticeDue int64, err error) {
	p, err := account.Require(ctx, account.ContractView)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	now := s.d.Clock.Now().UTC()
	soon := now.Add(ExpiringWindow)
	count := func(f contract.Filter) int64 {
		if err != nil {
			return 0
		}
		var n int64
		f.Limit = 1
		_, n, err = s.d.Store.Contracts(ctx, f)
		return n
	}
	drafts = count(contract.Filter{Statuses: []contract.Status{contract.Draft}})
	waiting = count(contract.Filter{Statuses: []contract.Status{contract.WaitingForClientSignature}})
	expiring = count(contract.Filter{Statuses: []contract.Status{contract.Signed}, EndFrom: &now, EndTo: &soon})
	noticeDue = count(NoticeFilter(p.UserID, now))
	return drafts, waiting, expiring, noticeDue, err
}
