package ports

import (
	"context"
	"io"
	"time"

	"counsel/domain/contract"
)

// ContractStore keeps contracts, their documents' metadata and their
// audit trail. Every write and its audit entries commit in one
// transaction. Methods taking fn load the current state, call fn, and save
// what fn left together with the entries fn returned; an error from fn
// rolls everything back and is returned as is. The store fills in each
// entry's ContractID and ActorName (the user's name at the time, or
// "system" / "signing provider").
type ContractStore interface {
	// CreateContract inserts c (its ID is assigned) with the entries of
	// audit, and returns it as stored. ECONFLICT for a taken UUID.
	CreateContract(ctx context.Context, c contract.Contract, audit []contract.AuditEntry) (contract.Contract, error)
	// Contract returns one contract. ENOTFOUND if unknown or deleted.
	Contract(ctx context.Context, id int64) (contract.Contract, error)
	// Contracts returns one page of the contracts matching f, ordered as f
	// asks, and the number of all matches. Filtering, ordering, counting
	// and paging happen in the database.
	Contracts(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error)
	// UpdateContract loads contract id, lets fn change it, and saves it
	// with fn's entries. ID, UUID and CreatedAt cannot change. ENOTFOUND
	// if unknown or deleted.
	UpdateContract(ctx context.Context, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error)
	// DeleteContract loads contract id, asks fn (which refuses with an
	// error or returns the entries to record), and removes the contract
	// and its documents, rows and bytes, in one transaction. The audit
	// trail stays. It returns the documents removed. ENOTFOUND if unknown
	// or deleted.
	DeleteContract(ctx context.Context, id int64, fn func(c contract.Contract) ([]contract.AuditEntry, error)) ([]contract.Document, error)
	// History returns a page of a contract's audit trail, newest first,
	// and its length. It answers for deleted contracts too; ENOTFOUND only
	// for an id that never existed.
	History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error)
	// DueForExpiry returns up to limit ids of Signed contracts whose end
	// date is before now, earliest end first.
	DueForExpiry(ctx context.Context, now time.Time, limit int) ([]int64, error)

	// AddDocument records document d of contract d.ContractID with its
	// bytes and the entries of audit, in one transaction, after check
	// (nil: none) has accepted the number of documents the contract
	// holds, counted in the same transaction
	// (contract.CheckRoomForDocument). The store assigns the ID and a new
	// StorageKey (any given is ignored). ENOTFOUND if the contract is
	// unknown; an error from check is returned as is; in every failure,
	// bytes whose size or SHA-256 differ from the row's included, nothing
	// is written.
	AddDocument(ctx context.Context, d NewDocument, audit []contract.AuditEntry, check func(documents int) error) (contract.Document, error)
	// Documents lists a contract's documents, oldest first. ENOTFOUND if
	// the contract is unknown.
	Documents(ctx context.Context, contractID int64) ([]contract.Document, error)
	// Document returns one document of a contract. ENOTFOUND if either is
	// unknown or the document belongs to another contract.
	Document(ctx context.Context, contractID, docID int64) (contract.Document, error)
	// RemoveDocument deletes a document, its row and its bytes, with the
	// entries fn returns for it, and returns the removed document. fn gets the contract's
	// status as the same transaction reads it (the contract's row held
	// against concurrent changes), so a rule on the status holds at the
	// delete; an error from fn is returned as is, with nothing written.
	// ENOTFOUND as for Document.
	RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error)
}

// NewDocument is a document to store and its bytes: Body holds
// Document.Size bytes whose SHA-256 is Document.SHA256 (a StagedBlob, or
// bytes in memory). The store reads Body one chunk at a time, possibly
// more than once (a transaction retried).
type NewDocument struct {
	contract.Document
	Body io.ReaderAt
}

// BlobStore spools uploads and reads stored document bytes. The bytes are
// written by the stores, in the transaction of their document's row
// (ContractStore.AddDocument, EvidenceStore.AddEvidence), and removed in
// the transaction that removes the row, so no row names missing bytes
// and no bytes outlive their row.
type BlobStore interface {
	// Stage streams r into a temporary file while hashing and counting
	// it, reading at most max bytes. ETOOLARGE when r holds more (the
	// temporary file is removed); errors from r are returned wrapped.
	Stage(ctx context.Context, r io.Reader, max int64) (StagedBlob, error)
	// Open opens the document bytes under key for reading. ENOTFOUND if
	// there are none.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, error)
}

// StagedBlob is an upload spooled to a temporary file, to be checked and
// then stored as a NewDocument's Body. Discard must be called once done
// with it (after the store has written it, or instead).
type StagedBlob interface {
	// ReaderAt reads the staged bytes (to recognise their type, and for
	// the store to copy them).
	io.ReaderAt
	// Size is the number of bytes staged.
	Size() int64
	// SHA256 is the lower-case hex SHA-256 of the bytes.
	SHA256() string
	// Discard removes the temporary file; calling it again does nothing.
	Discard() error
}

// StatusResult is the outcome of one id of a bulk status change.
type StatusResult struct {
	ID int64
	OK bool
	// Status is the contract's status afterwards (0 for an unknown id).
	Status contract.Status
	// Err says why the change was refused; nil when OK.
	Err error
}

// ContractService is the contract use case the HTTP adapter calls. Every
// method checks the caller's permission itself (ContractView,
// ContractCreate, ContractEdit, ContractDelete): EUNAUTHORIZED without a
// caller, EFORBIDDEN without the permission.
type ContractService interface {
	// Contracts lists contracts. EINVALID for an invalid filter.
	Contracts(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error)
	// Contract returns one contract. ENOTFOUND.
	Contract(ctx context.Context, id int64) (contract.Contract, error)
	// CreateContract creates a Draft with a new UUID from in's writable
	// fields. EINVALID for invalid fields.
	CreateContract(ctx context.Context, in contract.Contract) (contract.Contract, error)
	// UpdateContract applies an edit. ENOTFOUND, EINVALID, ECONFLICT for an
	// illegal status change.
	UpdateContract(ctx context.Context, id int64, e contract.Edit) (contract.Contract, error)
	// DeleteContract deletes a Draft and its documents. ENOTFOUND;
	// ECONFLICT "only Draft contracts can be deleted".
	DeleteContract(ctx context.Context, id int64) error
	// ChangeStatuses moves each contract of ids to status, each in its own
	// transaction, and reports each outcome in order. EINVALID for no ids,
	// more than contract.MaxBulkIDs, or an invalid status.
	ChangeStatuses(ctx context.Context, ids []int64, status contract.Status) ([]StatusResult, error)
	// History returns a page of a contract's audit trail, newest first.
	// ENOTFOUND for an id that never existed.
	History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error)
	// AddDocument streams a file into the contract's documents. ENOTFOUND,
	// ETOOLARGE past contract.MaxDocumentSize, EUNSUPPORTED unless PDF or
	// DOCX, ECONFLICT past contract.MaxDocuments.
	AddDocument(ctx context.Context, contractID int64, fileName string, r io.Reader) (contract.Document, error)
	// Documents lists a contract's documents. ENOTFOUND.
	Documents(ctx context.Context, contractID int64) ([]contract.Document, error)
	// OpenDocument returns a document and its bytes; the caller closes
	// them. ENOTFOUND.
	OpenDocument(ctx context.Context, contractID, docID int64) (contract.Document, io.ReadSeekCloser, error)
	// RemoveDocument deletes a document (its row, then its file).
	// ENOTFOUND.
	RemoveDocument(ctx context.Context, contractID, docID int64) error
}
