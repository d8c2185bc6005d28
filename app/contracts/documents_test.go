package contracts

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
	"counsel/ports/porttest"
)

// txDocStore is a ContractStore whose RemoveDocument transaction reads
// status, whatever an earlier read said; any other method panics (the
// embedded nil interface), so the use case cannot decide on a read of
// its own outside the transaction.
type txDocStore struct {
	ports.ContractStore
	status  contract.Status
	removed bool
}

func (s *txDocStore) RemoveDocument(_ context.Context, cid, did int64, fn func(contract.Status, contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	d := contract.Document{ID: did, ContractID: cid, FileName: "a.pdf", Kind: contract.KindOriginal}
	if _, err := fn(s.status, d); err != nil {
		return contract.Document{}, err
	}
	s.removed = true
	return d, nil
}

type noBlobs struct{ ports.BlobStore }

func (noBlobs) Delete(context.Context, string) error { return nil }

// TestRemoveDocumentDecidesInTheTransaction shows that removing a
// document (the API's and the console's one use case) refuses on the
// status the store's transaction reads:
// a contract sent for signature after the page was shown keeps its
// documents, and one recalled meanwhile loses it.
func TestRemoveDocumentDecidesInTheTransaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status contract.Status
		code   string
	}{
		{contract.WaitingForClientSignature, domain.ECONFLICT},
		{contract.Draft, ""},
		{contract.Signed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			store := &txDocStore{status: tt.status}
			svc := New(Deps{Store: store, Blobs: noBlobs{}, Clock: porttest.NewClock(porttest.T0)})
			ctx := account.NewContext(context.Background(), account.Principal{UserID: 1, Permissions: account.NewPermissionSet(account.ContractEdit)})
			err := svc.RemoveDocument(ctx, 7, 9)
			is.Equal(domain.ErrorCode(err), tt.code) // decided on the transaction's status
			if tt.code != "" {
				is.Equal(domain.ErrorMessage(err), contract.ErrOutForSignature) // with the reason
			}
			is.Equal(store.removed, tt.code == "") // refused: nothing removed
		})
	}
}
