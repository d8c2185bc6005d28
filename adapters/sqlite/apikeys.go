package sqlite

import (
	"context"
	"database/sql"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// APIKeyStore implements ports.APIKeyStore. One process owns the file,
// so the account service's own invalidation is the whole story.
type APIKeyStore struct{ db *DB }

var _ ports.APIKeyStore = (*APIKeyStore)(nil)

// NewAPIKeyStore returns the API key store of db.
func NewAPIKeyStore(db *DB) *APIKeyStore { return &APIKeyStore{db: db} }

// CreateAPIKey implements ports.APIKeyStore (the writer is the lock).
func (s *APIKeyStore) CreateAPIKey(ctx context.Context, k account.APIKey, max int) (int64, error) {
	var id int64
	err := s.db.writeTx(ctx, func(tx *sql.Tx) (err error) {
		id, err = sqlrow.CreateAPIKey(ctx, sq{tx}, dialect{}, k, max, "")
		return err
	})
	return id, err
}

// APIKeys implements ports.APIKeyStore.
func (s *APIKeyStore) APIKeys(ctx context.Context, userID int64) ([]account.APIKey, error) {
	return sqlrow.APIKeys(ctx, sq{s.db.read}, dialect{}, userID)
}

// APIKeyByHash implements ports.APIKeyStore.
func (s *APIKeyStore) APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error) {
	return sqlrow.APIKeyByHash(ctx, sq{s.db.read}, dialect{}, hash)
}

// RevokeAPIKey implements ports.APIKeyStore.
func (s *APIKeyStore) RevokeAPIKey(ctx context.Context, userID, id int64, at time.Time) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		return sqlrow.RevokeAPIKey(ctx, sq{tx}, dialect{}, userID, id, at)
	})
}

// TouchAPIKey implements ports.APIKeyStore.
func (s *APIKeyStore) TouchAPIKey(ctx context.Context, id int64, at time.Time) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		return sqlrow.TouchAPIKey(ctx, sq{tx}, dialect{}, id, at)
	})
}
