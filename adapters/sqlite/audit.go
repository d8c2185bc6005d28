package sqlite

import (
	"context"

	"counsel/adapters/sqlrow"
)

// userName is the name the audit trail shows for a user.
func userName(ctx context.Context, q queryer, id int64) (string, error) {
	return sqlrow.UserName(ctx, sq{q}, id)
}
