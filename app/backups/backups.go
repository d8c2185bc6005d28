// Package backups is the use case of the scheduled backups' list: only
// system administrators see it.
package backups

import (
	"context"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// listed is how many attempts the list shows at most.
const listed = 200

// Service implements ports.BackupService.
type Service struct {
	Log ports.BackupLog
}

var _ ports.BackupService = (*Service)(nil)

// Backups returns the recorded attempts, newest first, to a system
// administrator; anyone else is refused (EFORBIDDEN).
func (s *Service) Backups(ctx context.Context) ([]ports.BackupRun, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.SystemAdmin {
		return nil, domain.Errorf(domain.EFORBIDDEN, "only system administrators see the backups")
	}
	return s.Log.BackupRuns(ctx, listed)
}
