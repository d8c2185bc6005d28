package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// TemplateDigest implements ports.ContractSigningStore.
func (s *ContractStore) TemplateDigest(ctx context.Context, templateID string) (string, error) {
	var d string
	err := s.db.queryRow(ctx, `SELECT digest FROM signing_template_digests WHERE template_id = ?`, templateID).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the digest of signing template %s: %w", templateID, err)
	}
	return d, nil
}

// SetTemplateDigest implements ports.ContractSigningStore.
func (s *ContractStore) SetTemplateDigest(ctx context.Context, templateID, digest string) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_template_digests (template_id, digest, recorded_at) VALUES (?, ?, ?)
			ON CONFLICT (template_id) DO UPDATE SET digest = excluded.digest, recorded_at = excluded.recorded_at`,
			templateID, digest, ms(s.db.Now()))
		return err
	})
}

// SaveSignerLinks implements ports.ContractSigningStore.
func (s *ContractStore) SaveSignerLinks(ctx context.Context, submissionID string, sealed map[string][]byte) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		for submitterID, b := range sealed {
			if _, err := tx.ExecContext(ctx, `INSERT INTO signing_signer_links (submission_id, submitter_id, sealed, recorded_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (submission_id, submitter_id) DO UPDATE SET sealed = excluded.sealed, recorded_at = excluded.recorded_at`,
				submissionID, submitterID, b, ms(s.db.Now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// SignerLinks implements ports.ContractSigningStore.
func (s *ContractStore) SignerLinks(ctx context.Context, submissionID string) (map[string][]byte, error) {
	rows, err := s.db.read.QueryContext(ctx, `SELECT submitter_id, sealed FROM signing_signer_links WHERE submission_id = ?`, submissionID)
	if err != nil {
		return nil, fmt.Errorf("read the signing links of submission %s: %w", submissionID, err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, rows.Err()
}
