package porttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/ports"
)

// withBytes is d to be stored with body as its bytes (its Size and
// SHA256 those of body).
func withBytes(d contract.Document, body string) ports.NewDocument {
	sum := sha256.Sum256([]byte(body))
	d.Size, d.SHA256 = int64(len(body)), hex.EncodeToString(sum[:])
	return ports.NewDocument{Document: d, Body: strings.NewReader(body)}
}

// failingAt reads r until offset at, then fails.
type failingAt struct {
	r  io.ReaderAt
	at int64
}

func (f failingAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		return 0, errors.New("the spooled file became unreadable")
	}
	return f.r.ReadAt(p, off)
}

// cancelAtEnd reads r and cancels a context once its last byte is read.
type cancelAtEnd struct {
	r      io.ReaderAt
	size   int64
	cancel context.CancelFunc
}

func (c cancelAtEnd) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if off+int64(n) >= c.size {
		c.cancel()
	}
	return n, err
}

// DocumentBytesSuite holds that a document's bytes and its row are one
// write: kept together, refused together whatever fails once the bytes
// are written (before or after the row), and removed together, by the
// document's removal or its contract's.
func DocumentBytesSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	uid := bootstrap(t, s)
	c, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "8e5b8a46-3c1f-4f8e-9d6a-2f4b1c7d9e01", Name: "Bytes",
		Type: contract.Other, Status: contract.Draft, DigitalContractID: "tpl", DigitalContractSubmissionID: "sub-bytes",
		CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)

	// stored is what the database holds of documents: rows, their bytes
	// and their chunks, and the contract's audit trail.
	type counts struct{ docs, blobs, chunks, history int64 }
	stored := func() counts {
		t.Helper()
		var n counts
		for _, x := range []struct {
			table string
			n     *int64
		}{{"contract_documents", &n.docs}, {"document_blobs", &n.blobs}, {"document_chunks", &n.chunks}} {
			v, err := s.Rows(ctx, x.table)
			if err != nil {
				t.Fatalf("count %s: %v", x.table, err)
			}
			*x.n = v
		}
		_, h, err := s.Contracts.History(ctx, c.ID, 1, 0)
		if err != nil {
			t.Fatalf("history: %v", err)
		}
		n.history = h
		return n
	}
	const chunk = 256 << 10
	body := strings.Repeat("%PDF-1.7 counsel ", 2*chunk/17+100) // three chunks, the last short
	size := int64(len(body))
	added := []contract.AuditEntry{{Action: contract.ActionDocumentAdded, Actor: contract.ActorUser, ActorUserID: uid, At: T0, Details: "a.pdf"}}
	original := func() ports.NewDocument {
		return withBytes(contract.Document{ContractID: c.ID, FileName: "a.pdf", ContentType: contract.ContentTypePDF, UploadedAt: T0, UploadedBy: uid}, body)
	}
	boom := errors.New("refused by the use case")

	before := stored()
	is.Equal(before, counts{history: 1})
	for _, tt := range []struct {
		name  string
		doc   func(cancel context.CancelFunc) ports.NewDocument
		check func(int) error
	}{
		{"bytes other than the row states", func(context.CancelFunc) ports.NewDocument {
			d := original()
			d.SHA256 = strings.Repeat("0", 64)
			return d
		}, nil},
		{"fewer bytes than the row states", func(context.CancelFunc) ports.NewDocument {
			d := original()
			d.Size++
			return d
		}, nil},
		{"the body failing after its first chunk", func(context.CancelFunc) ports.NewDocument {
			d := original()
			d.Body = failingAt{d.Body, chunk + 1}
			return d
		}, nil},
		{"the row refused after its bytes are written", func(context.CancelFunc) ports.NewDocument {
			d := original()
			d.Kind = "forged" // the kind's constraint fails the row's insert
			return d
		}, nil},
		{"the request gone once its bytes are read", func(cancel context.CancelFunc) ports.NewDocument {
			d := original()
			d.Body = cancelAtEnd{d.Body, size, cancel}
			return d
		}, nil},
		{"the count refused", func(context.CancelFunc) ports.NewDocument { return original() }, func(int) error { return boom }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			_, err := s.Contracts.AddDocument(ctx, tt.doc(cancel), added, tt.check)
			is.True(err != nil)
			is.Equal(stored(), before) // neither bytes nor row nor entry
		})
	}

	d, err := s.Contracts.AddDocument(ctx, original(), added, nil)
	is.NoErr(err)
	is.Equal(stored(), counts{docs: 1, blobs: 1, chunks: 3, history: 2})
	f, err := s.Blobs.Open(ctx, d.StorageKey)
	is.NoErr(err)
	got, err := io.ReadAll(f)
	is.NoErr(err)
	f.Close()
	is.Equal(string(got), body)

	// Evidence: both documents with their bytes, or nothing; once.
	evidence := func(audit string) []ports.NewDocument {
		return []ports.NewDocument{
			withBytes(contract.Document{FileName: "signed.pdf", ContentType: contract.ContentTypePDF, UploadedAt: T0, Kind: contract.KindSigned}, "signed "+body),
			withBytes(contract.Document{FileName: "audit.pdf", ContentType: contract.ContentTypePDF, UploadedAt: T0, Kind: contract.KindAudit}, audit),
		}
	}
	entry := []contract.AuditEntry{{Action: contract.ActionSigningCompleted, Actor: contract.ActorSigningProvider, At: T0}}
	bad := evidence("audit")
	bad[1].SHA256 = strings.Repeat("0", 64)
	_, applied, err := s.Contracts.AddEvidence(ctx, "sub-bytes", bad, entry, nil)
	is.True(err != nil)
	is.True(!applied)
	is.Equal(stored(), counts{docs: 1, blobs: 1, chunks: 3, history: 2}) // the signed PDF's bytes went too
	ev, applied, err := s.Contracts.AddEvidence(ctx, "sub-bytes", evidence("audit"), entry, nil)
	is.NoErr(err)
	is.True(applied)
	is.Equal(stored(), counts{docs: 3, blobs: 3, chunks: 3 + 3 + 1, history: 3})
	for _, e := range ev {
		f, err := s.Blobs.Open(ctx, e.StorageKey)
		is.NoErr(err)
		b, err := io.ReadAll(f)
		is.NoErr(err)
		f.Close()
		is.Equal(int64(len(b)), e.Size)
	}
	again, applied, err := s.Contracts.AddEvidence(ctx, "sub-bytes", evidence("another audit"), entry, nil)
	is.NoErr(err)
	is.True(!applied)
	is.Equal(len(again), 2)
	is.Equal(stored(), counts{docs: 3, blobs: 3, chunks: 7, history: 3}) // no bytes for the repeat

	// Removed with their rows: one document, then the contract's others.
	_, err = s.Contracts.RemoveDocument(ctx, c.ID, d.ID, func(contract.Status, contract.Document) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)
	_, err = s.Blobs.Open(ctx, d.StorageKey)
	is.Equal(code(err), domain.ENOTFOUND)
	is.Equal(stored(), counts{docs: 2, blobs: 2, chunks: 4, history: 3})
	_, err = s.Contracts.DeleteContract(ctx, c.ID, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)
	for _, e := range ev {
		_, err = s.Blobs.Open(ctx, e.StorageKey)
		is.Equal(code(err), domain.ENOTFOUND)
	}
	n, err := s.Rows(ctx, "document_blobs")
	is.NoErr(err)
	is.Equal(n, int64(0))
	n, err = s.Rows(ctx, "document_chunks")
	is.NoErr(err)
	is.Equal(n, int64(0))
}
