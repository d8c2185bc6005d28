package contracts

import (
	"context"
	"time"

	"counsel/domain/contract"
)

// sweepBatch is how many contracts one pass of the sweep reads at a time.
const sweepBatch = 100

// ExpireDue moves every Signed contract whose end date has passed to
// Expired, each in its own transaction with a statusChanged entry by the
// actor system, and returns how many it moved. The domain decides again
// inside each transaction (contract.ShouldExpire), so a contract changed
// meanwhile, or a second sweep running at once, changes nothing twice.
func (s *Service) ExpireDue(ctx context.Context) (int, error) {
	moved := 0
	for {
		ids, err := s.d.Store.DueForExpiry(ctx, s.d.Clock.Now(), sweepBatch)
		if err != nil {
			return moved, err
		}
		progress := false
		for _, id := range ids {
			changed := false
			_, err := s.change(ctx, id, func(c *contract.Contract, now time.Time) ([]contract.AuditEntry, error) {
				if !contract.ShouldExpire(*c, now) {
					return nil, nil
				}
				ch, err := c.ChangeStatus(contract.Expired, contract.ActorSystem)
				if err != nil {
					return nil, err
				}
				changed = ch.Changed
				return ch.Audit(contract.ActionStatusChanged, 0, now, "the end date has passed"), nil
			})
			if err != nil {
				return moved, err
			}
			if changed {
				moved++
				progress = true
			}
		}
		// A short batch was the last; a batch that moved nothing would
		// only be read again.
		if len(ids) < sweepBatch || !progress {
			return moved, nil
		}
	}
}
