package postgres

import (
	"context"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// APIKeyStore implements ports.APIKeyStore. A revocation notifies every
// instance with its commit (accessTx), so their cached principals of the
// key are checked again at once.
type APIKeyStore struct{ db *DB }

var _ ports.APIKeyStore = (*APIKeyStore)(nil)

// NewAPIKeyStore returns the API key store of db.
func NewAPIKeyStore(db *DB) *APIKeyStore { return &APIKeyStore{db: db} }

// CreateAPIKey implements ports.APIKeyStore. The user's row is locked,
// so two creations cannot both pass the count.
func (s *APIKeyStore) CreateAPIKey(ctx context.Context, k account.APIKey, max int) (int64, error) {
	var id int64
	err := s.db.tx(ctx, func(x q) (err error) {
		id, err = sqlrow.CreateAPIKey(ctx, x, dialect{}, k, max, " FOR UPDATE")
		return err
	})
	return id, err
}

// APIKeys implements ports.APIKeyStore.
func (s *APIKeyStore) APIKeys(ctx context.Context, userID int64) ([]account.APIKey, error) {
	return sqlrow.APIKeys(ctx, s.db.read(), dialect{}, userID)
}

// APIKeyByHash implements ports.APIKeyStore.
func (s *APIKeyStore) APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error) {
	return sqlrow.APIKeyByHash(ctx, s.db.read(), dialect{}, hash)
}

// RevokeAPIKey implements ports.APIKeyStore.
func (s *APIKeyStore) RevokeAPIKey(ctx context.Context, userID, id int64, at time.Time) error {
	return s.db.accessTx(ctx, func(x q) error {
		return sqlrow.RevokeAPIKey(ctx, x, dialect{}, userID, id, at)
	})
}

// TouchAPIKey implements ports.APIKeyStore.
func (s *APIKeyStore) TouchAPIKey(ctx context.Context, id int64, at time.Time) error {
	return s.db.tx(ctx, func(x q) error {
		return sqlrow.TouchAPIKey(ctx, x, dialect{}, id, at)
	})
}
