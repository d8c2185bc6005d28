package sqlrow

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/ports"
)

// APIKeyStore implements ports.APIKeyStore on any Engine. A revocation
// runs in AccessTx, so every instance checks its cached principals of the
// key again at once.
type APIKeyStore struct{ e Engine }

var _ ports.APIKeyStore = APIKeyStore{}

// NewAPIKeyStore returns the API key store of e.
func NewAPIKeyStore(e Engine) APIKeyStore { return APIKeyStore{e: e} }

// CreateAPIKey implements ports.APIKeyStore. The user's row is locked
// (LockRow), so two creations cannot both pass the count.
func (s APIKeyStore) CreateAPIKey(ctx context.Context, k account.APIKey, max int) (int64, error) {
	var id int64
	err := s.e.WriteTx(ctx, func(x Querier) (err error) {
		id, err = CreateAPIKey(ctx, x, s.e, k, max, s.e.LockRow())
		return err
	})
	return id, err
}

// APIKeys implements ports.APIKeyStore.
func (s APIKeyStore) APIKeys(ctx context.Context, userID int64) ([]account.APIKey, error) {
	return APIKeys(ctx, s.e.Read(), s.e, userID)
}

// APIKeyByHash implements ports.APIKeyStore.
func (s APIKeyStore) APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error) {
	return APIKeyByHash(ctx, s.e.Read(), s.e, hash)
}

// RevokeAPIKey implements ports.APIKeyStore.
func (s APIKeyStore) RevokeAPIKey(ctx context.Context, userID, id int64, at time.Time) error {
	return s.e.AccessTx(ctx, func(x Querier) error {
		return RevokeAPIKey(ctx, x, s.e, userID, id, at)
	})
}

// TouchAPIKey implements ports.APIKeyStore.
func (s APIKeyStore) TouchAPIKey(ctx context.Context, id int64, at time.Time) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		return TouchAPIKey(ctx, x, s.e, id, at)
	})
}
