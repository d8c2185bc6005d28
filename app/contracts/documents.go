package contracts

import (
	"context"
	"fmt"
	"io"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
)

// AddDocument implements ports.ContractService. The upload streams into a
// staged file (hashed and counted on the way, at most
// contract.MaxDocumentSize) and is recognised by its content; the store
// then writes its bytes and its row in one transaction. Nothing of a
// refused upload stays, and the staged file goes in every case.
func (s *Service) AddDocument(ctx context.Context, contractID int64, fileName string, r io.Reader) (contract.Document, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return contract.Document{}, err
	}
	// Refuse an unknown contract before reading 20 MiB for it.
	if _, err := s.d.Store.Contract(ctx, contractID); err != nil {
		return contract.Document{}, err
	}
	staged, err := s.d.Blobs.Stage(ctx, r, contract.MaxDocumentSize)
	if err != nil {
		return contract.Document{}, err
	}
	defer staged.Discard()
	contentType, err := contract.SniffDocument(staged, staged.Size())
	if err != nil {
		return contract.Document{}, err
	}
	if contentType == contract.ContentTypePDF {
		// What evidence decodes of a document is bounded here, once.
		if err := contract.CheckPDFStreams(staged, staged.Size(), contract.MaxPDFDecodedSize); err != nil {
			return contract.Document{}, err
		}
	}
	now := s.d.Clock.Now()
	d := contract.Document{
		ContractID: contractID, FileName: contract.CleanFileName(fileName, contentType), ContentType: contentType,
		Size: staged.Size(), SHA256: staged.SHA256(), UploadedAt: now, UploadedBy: p.UserID,
	}
	audit := []contract.AuditEntry{{Action: contract.ActionDocumentAdded, Actor: contract.ActorUser, ActorUserID: p.UserID, At: now,
		Details: fmt.Sprintf("%s (%d bytes, sha256 %s)", d.FileName, d.Size, d.SHA256)}}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.ContractEvents(contractID, audit)...)
	return s.d.Store.AddDocument(ctx, ports.NewDocument{Document: d, Body: staged}, audit, contract.CheckRoomForDocument)
}

// Documents implements ports.ContractService.
func (s *Service) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	if _, err := account.Require(ctx, account.ContractView); err != nil {
		return nil, err
	}
	return s.d.Store.Documents(ctx, contractID)
}

// OpenDocument implements ports.ContractService. A row whose file is
// missing is a server fault (lost data), not a client's unknown id.
func (s *Service) OpenDocument(ctx context.Context, contractID, docID int64) (contract.Document, io.ReadSeekCloser, error) {
	if _, err := account.Require(ctx, account.ContractView); err != nil {
		return contract.Document{}, nil, err
	}
	d, err := s.d.Store.Document(ctx, contractID, docID)
	if err != nil {
		return contract.Document{}, nil, err
	}
	rc, err := s.d.Blobs.Open(ctx, d.StorageKey)
	if err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			err = fmt.Errorf("document %d of contract %d has no file: %v", d.ID, contractID, err)
		}
		return contract.Document{}, nil, err
	}
	return d, rc, nil
}

// RemoveDocument implements ports.ContractService: the row, its bytes and
// its audit entry in one transaction, when the document is removable from
// the contract in the status that transaction reads
// (Document.RemovableFrom: not while it is out for signature, never
// signed evidence), so a contract sent for signature meanwhile cannot
// lose a document. The API and the console both call it.
func (s *Service) RemoveDocument(ctx context.Context, contractID, docID int64) error {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return err
	}
	now := s.d.Clock.Now()
	ctx, fx := ports.WithEffects(ctx)
	_, err = s.d.Store.RemoveDocument(ctx, contractID, docID, func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error) {
		if err := d.RemovableFrom(status); err != nil {
			return nil, err
		}
		entries := []contract.AuditEntry{{Action: contract.ActionDocumentRemoved, Actor: contract.ActorUser, ActorUserID: p.UserID, At: now,
			Details: fmt.Sprintf("%s (document %d)", d.FileName, d.ID)}}
		fx.Add(ports.ContractEvents(contractID, entries)...)
		return entries, nil
	})
	return err
}
