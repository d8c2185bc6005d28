package sqlrow

import (
	"context"
	"fmt"
)

// SigningRecords is the part of ports.ContractSigningStore that keeps
// what a signing provider with its own copies returns once (template
// digests, signers' links), on any Engine. Each engine's contract store
// embeds it.
type SigningRecords struct{ E Engine }

// TemplateDigest implements ports.ContractSigningStore.
func (s SigningRecords) TemplateDigest(ctx context.Context, templateID string) (string, error) {
	var d string
	err := s.E.Read().Row(ctx, `SELECT digest FROM signing_template_digests WHERE template_id = ?`, templateID).Scan(&d)
	if NoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the digest of signing template %s: %w", templateID, err)
	}
	return d, nil
}

// SetTemplateDigest implements ports.ContractSigningStore.
func (s SigningRecords) SetTemplateDigest(ctx context.Context, templateID, digest string) error {
	return s.E.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `INSERT INTO signing_template_digests (template_id, digest, recorded_at) VALUES (?, ?, ?)
			ON CONFLICT (template_id) DO UPDATE SET digest = excluded.digest, recorded_at = excluded.recorded_at`,
			templateID, digest, s.E.Arg(s.E.Now()))
		return err
	})
}

// SaveSignerLinks implements ports.ContractSigningStore.
func (s SigningRecords) SaveSignerLinks(ctx context.Context, submissionID string, sealed map[string][]byte) error {
	return s.E.WriteTx(ctx, func(x Querier) error {
		for submitterID, b := range sealed {
			if _, err := x.Exec(ctx, `INSERT INTO signing_signer_links (submission_id, submitter_id, sealed, recorded_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (submission_id, submitter_id) DO UPDATE SET sealed = excluded.sealed, recorded_at = excluded.recorded_at`,
				submissionID, submitterID, b, s.E.Arg(s.E.Now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// SignerLinks implements ports.ContractSigningStore.
func (s SigningRecords) SignerLinks(ctx context.Context, submissionID string) (map[string][]byte, error) {
	rows, err := s.E.Read().Query(ctx, `SELECT submitter_id, sealed FROM signing_signer_links WHERE submission_id = ?`, submissionID)
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
