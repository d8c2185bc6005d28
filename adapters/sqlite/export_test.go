package sqlite

import (
	"context"

	"counsel/domain/account"
	"counsel/domain/user"
)

// SetWalkThreshold lets the tests of package sqlite_test read pages both
// ways over a small table, on store s alone.
func (s *ContractStore) SetWalkThreshold(n int64) { s.knobs.walkThreshold = n }

// SetSearchProbe lets the tests of package sqlite_test take a search
// past the trigram index's probe over a small table, on store s alone.
func (s *ContractStore) SetSearchProbe(n int) { s.knobs.searchProbe = n }

// CreateUser adds a user who signs in, as the command line does:
// through the user store's CreateUser (the one way users are created),
// with the roles named (none: the default roles; EINVALID for an unknown
// one). Names and email are not validated, as the store does not
// validate.
func CreateUser(ctx context.Context, s *AccountStore, u account.NewUser) (int64, error) {
	nu := user.New()
	nu.Apply(user.Patch{Email: &u.Email, FirstName: &u.FirstName, LastName: &u.LastName})
	p, err := s.Refresher.(refresher).db.Stores().Users.CreateUser(ctx, nu, u.PasswordHash, func(a *user.Aggregate) error { return a.GiveRoleNames(u.Roles) })
	return p.ID, err
}
