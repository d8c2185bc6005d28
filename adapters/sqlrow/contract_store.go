package sqlrow

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/decimal"
	"counsel/ports"
)

// ContractRows is what each engine writes its own way about contracts:
// a contract's row (SQLite keeps is_digital and runs prepared statements
// that compile the word triggers once; PostgreSQL keeps search_text for
// its trigram index) and a document's bytes (prepared chunk inserts or
// COPY).
type ContractRows interface {
	// InsertContract inserts c's row and returns its id.
	InsertContract(ctx context.Context, x Querier, c contract.Contract) (int64, error)
	// SaveContract writes every field of c to the row of contract c.ID.
	SaveContract(ctx context.Context, x Querier, c contract.Contract) error
	// WriteDocumentBytes stores the bytes of document d, read from r,
	// under key in x's transaction, and fails (the caller rolling it
	// back) unless they are the size and SHA-256 d states.
	WriteDocumentBytes(ctx context.Context, x Querier, d contract.Document, key string, r io.Reader) error
}

// ContractStore is ports.ContractStore, ports.ContractSigningStore and
// ports.EvidenceStore on any Engine but for the list and the bulk import,
// which each engine plans its own way. A write locks the contract's row
// it decides on (LockRow), so a change made meanwhile on another instance
// is not lost and one webhook or one submission's evidence is applied
// once.
type ContractStore struct {
	SigningRecords
	e    Engine
	rows ContractRows
}

var (
	_ ports.ContractSigningStore = ContractStore{}
	_ ports.EvidenceStore        = ContractStore{}
)

// NewContractStore returns the contract store of e.
func NewContractStore(e Engine, rows ContractRows) ContractStore {
	return ContractStore{SigningRecords: SigningRecords{E: e}, e: e, rows: rows}
}

// ContractCols are the columns ScanContract reads, the contracts table
// aliased c.
const ContractCols = `c.id, c.uuid, c.contract_name, c.contract_description, c.contract_type, c.status,
	c.start_date, c.end_date, c.amount, c.currency, c.is_signed, c.comments, c.matter_id, c.client_id, c.project_id,
	c.digital_contract_id, c.digital_contract_submission_id, c.created_at, c.updated_at,
	c.owner_id, c.notice_days, c.auto_renew, ` + OwnerNameCol

// ContractItemCols are the columns of a list item (no long text), which
// ScanContractItem reads.
const ContractItemCols = `c.id, c.uuid, c.contract_name, c.contract_type, c.status, c.start_date, c.end_date,
	c.amount, c.currency, c.is_signed, c.matter_id, c.client_id, c.project_id, c.digital_contract_id, c.updated_at,
	c.owner_id, c.notice_days, c.auto_renew, ` + OwnerNameCol

// contractRow holds the columns of a contract that are scanned into
// other types than the field's.
type contractRow struct {
	typ, status                     int64
	amount, matter, client, project sql.NullInt64
	owner, noticeDays               sql.NullInt64
	ownerName                       sql.NullString
}

func (r *contractRow) fill(c *contract.Contract) {
	c.Type, c.Status = contract.Type(r.typ), contract.Status(r.status)
	if r.amount.Valid {
		a := decimal.FromScaled(r.amount.Int64, contract.AmountPlaces)
		c.Amount = &a
	}
	c.MatterID, c.ClientID, c.ProjectID = nullID(r.matter), nullID(r.client), nullID(r.project)
	c.OwnerID, c.OwnerName = r.owner.Int64, r.ownerName.String
	if r.noticeDays.Valid {
		n := int(r.noticeDays.Int64)
		c.NoticeDays = &n
	}
}

func nullID(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	n := v.Int64
	return &n
}

// ScanContract reads ContractCols.
func ScanContract(tc Times, s Scanner) (contract.Contract, error) {
	var c contract.Contract
	var r contractRow
	err := s.Scan(&c.ID, &c.UUID, &c.Name, &c.Description, &r.typ, &r.status, NullTime(tc, &c.StartDate), NullTime(tc, &c.EndDate), &r.amount,
		&c.Currency, &c.IsSigned, &c.Comments, &r.matter, &r.client, &r.project,
		&c.DigitalContractID, &c.DigitalContractSubmissionID, Time(tc, &c.CreatedAt), Time(tc, &c.UpdatedAt),
		&r.owner, &r.noticeDays, &c.AutoRenew, &r.ownerName)
	r.fill(&c)
	return c, err
}

// ScanContractItem reads ContractItemCols.
func ScanContractItem(tc Times, s Scanner) (contract.Contract, error) {
	var c contract.Contract
	var r contractRow
	err := s.Scan(&c.ID, &c.UUID, &c.Name, &r.typ, &r.status, NullTime(tc, &c.StartDate), NullTime(tc, &c.EndDate), &r.amount, &c.Currency,
		&c.IsSigned, &r.matter, &r.client, &r.project, &c.DigitalContractID, Time(tc, &c.UpdatedAt),
		&r.owner, &r.noticeDays, &c.AutoRenew, &r.ownerName)
	r.fill(&c)
	return c, err
}

// LoadContract reads contract id; lock is appended to the query.
func LoadContract(ctx context.Context, x Querier, tc Times, id int64, lock string) (contract.Contract, error) {
	c, err := ScanContract(tc, x.Row(ctx, `SELECT `+ContractCols+` FROM contracts c WHERE c.id = ?`+lock, id))
	switch {
	case NoRows(err):
		return c, NotFound("contract")
	case err != nil:
		return c, fmt.Errorf("load contract %d: %w", id, err)
	}
	return c, nil
}

// ContractAmount encodes an amount as integer cents (NULL for none).
// Validate bounds amounts below 10^15, so only a value that skipped
// validation fails here.
func ContractAmount(a *decimal.Decimal) (any, error) {
	if a == nil {
		return nil, nil
	}
	v, ok := a.Round(contract.AmountPlaces).Scaled(contract.AmountPlaces)
	if !ok {
		return nil, domain.Errorf(domain.EINVALID, "amount is out of range")
	}
	return v, nil
}

// NullOwner is ownerId as a column value (NULL for none).
func NullOwner(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// CreateContract implements ports.ContractStore.
func (s ContractStore) CreateContract(ctx context.Context, c contract.Contract, audit []contract.AuditEntry) (contract.Contract, error) {
	if _, err := ContractAmount(c.Amount); err != nil {
		return contract.Contract{}, err
	}
	var out contract.Contract
	err := s.e.WriteTx(ctx, func(x Querier) error {
		id, err := s.rows.InsertContract(ctx, x, c)
		if err != nil {
			return fmt.Errorf("insert contract %s: %w", c.UUID, err)
		}
		ports.Created(ctx, id)
		if err := InsertAudit(ctx, x, s.e, id, audit); err != nil {
			return fmt.Errorf("audit of contract %d: %w", id, err)
		}
		out, err = LoadContract(ctx, x, s.e, id, "")
		return err
	})
	return out, err
}

// Contract implements ports.ContractStore.
func (s ContractStore) Contract(ctx context.Context, id int64) (contract.Contract, error) {
	c, err := LoadContract(ctx, s.e.Read(), s.e, id, "")
	return c, s.e.FormatError(err)
}

// UpdateContract implements ports.ContractStore.
func (s ContractStore) UpdateContract(ctx context.Context, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error) {
	var out contract.Contract
	err := s.e.WriteTx(ctx, func(x Querier) (err error) {
		out, err = s.updateContract(ctx, x, id, fn)
		return err
	})
	return out, err
}

// updateContract loads contract id locked, lets fn change it, and saves
// it with fn's entries; it returns the contract as stored.
func (s ContractStore) updateContract(ctx context.Context, x Querier, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error) {
	c, err := LoadContract(ctx, x, s.e, id, s.e.LockRow())
	if err != nil {
		return contract.Contract{}, err
	}
	before := c
	entries, err := fn(&c)
	if err != nil {
		return contract.Contract{}, err
	}
	c.ID, c.UUID, c.CreatedAt = before.ID, before.UUID, before.CreatedAt
	if err := s.rows.SaveContract(ctx, x, c); err != nil {
		return contract.Contract{}, fmt.Errorf("update contract %d: %w", id, err)
	}
	if err := InsertAudit(ctx, x, s.e, id, entries); err != nil {
		return contract.Contract{}, fmt.Errorf("audit of contract %d: %w", id, err)
	}
	return LoadContract(ctx, x, s.e, id, "")
}

// DeleteContract implements ports.ContractStore. The documents' rows go
// by ON DELETE CASCADE; their bytes are the caller's to remove.
func (s ContractStore) DeleteContract(ctx context.Context, id int64, fn func(c contract.Contract) ([]contract.AuditEntry, error)) ([]contract.Document, error) {
	var docs []contract.Document
	err := s.e.WriteTx(ctx, func(x Querier) error {
		c, err := LoadContract(ctx, x, s.e, id, s.e.LockRow())
		if err != nil {
			return err
		}
		entries, err := fn(c)
		if err != nil {
			return err
		}
		if docs, err = Documents(ctx, x, s.e, id); err != nil {
			return fmt.Errorf("documents of contract %d: %w", id, err)
		}
		if _, err := x.Exec(ctx, `DELETE FROM contracts WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete contract %d: %w", id, err)
		}
		if err := InsertAudit(ctx, x, s.e, id, entries); err != nil {
			return fmt.Errorf("audit of contract %d: %w", id, err)
		}
		return nil
	})
	return docs, err
}

// dueForExpirySQL reads the signed contracts past their end through the
// index of status and end date (on PostgreSQL the partial index
// contracts_due, whose condition the literal status matches).
var dueForExpirySQL = ` WHERE status = ` + strconv.Itoa(int(contract.Signed)) + ` AND end_date < ? ORDER BY end_date, id LIMIT ?`

// DueForExpiry implements ports.ContractStore.
func (s ContractStore) DueForExpiry(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := QueryAll(ctx, s.e.Read(), ID, `SELECT id FROM contracts`+s.e.IndexedBy("contracts_status_end")+dueForExpirySQL, s.e.Arg(now), limit)
	if err != nil {
		return nil, fmt.Errorf("contracts due for expiry: %w", err)
	}
	return ids, nil
}

// AddDocument implements ports.ContractStore: the bytes, the row and the
// audit entries in one transaction. The contract's row is locked
// (LockRow), so instances adding documents at once count them one by
// one.
func (s ContractStore) AddDocument(ctx context.Context, d ports.NewDocument, audit []contract.AuditEntry, check func(int) error) (contract.Document, error) {
	var out contract.Document
	err := s.e.WriteTx(ctx, func(x Querier) (err error) {
		write := func(key string) error {
			return s.rows.WriteDocumentBytes(ctx, x, d.Document, key, io.NewSectionReader(d.Body, 0, d.Size))
		}
		out, err = AddDocument(ctx, x, s.e, d.Document, write, audit, check, s.e.LockRow())
		return err
	})
	return out, err
}

// Documents implements ports.ContractStore.
func (s ContractStore) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	var out []contract.Document
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, err = ContractDocuments(ctx, x, s.e, contractID)
		return err
	})
	return out, err
}

// Document implements ports.ContractStore.
func (s ContractStore) Document(ctx context.Context, contractID, docID int64) (contract.Document, error) {
	return Document(ctx, s.e.Read(), s.e, contractID, docID, "")
}

// DocumentByID implements ports.ContractSigningStore.
func (s ContractStore) DocumentByID(ctx context.Context, docID int64) (contract.Document, error) {
	return DocumentByID(ctx, s.e.Read(), s.e, docID)
}

// RemoveDocument implements ports.ContractStore. Where rows lock, the
// contract's row is share-locked before its status is read, so a status
// change (which locks it for update) waits for the removal to commit, or
// the removal for the change; SQLite's single writer holds the contract
// still from the status read to the delete.
func (s ContractStore) RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	var l Locks
	if s.e.LockRow() != "" {
		l = Locks{Update: s.e.LockRow(), Share: " FOR SHARE"}
	}
	var d contract.Document
	err := s.e.WriteTx(ctx, func(x Querier) (err error) {
		d, err = RemoveDocument(ctx, x, s.e, contractID, docID, fn, l)
		return err
	})
	return d, err
}

// History implements ports.ContractStore.
func (s ContractStore) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	var out []contract.AuditEntry
	var count int64
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, count, err = History(ctx, x, s.e, id, limit, offset)
		return err
	})
	return out, count, err
}

// evidenceKey records in contract_signing_events that a submission's
// evidence is stored, so it is stored once.
const evidenceKey = "evidence.stored"

// contractBySubmission finds the contract of a submission through the
// partial index contracts_submission (its condition is repeated so the
// planner may use it); of two contracts naming one submission, which only
// a restored backup could produce, the newest wins. lock is appended to
// the query.
func contractBySubmission(ctx context.Context, x Querier, submissionID, lock string) (int64, error) {
	var id int64
	err := x.Row(ctx, `SELECT id FROM contracts
		WHERE digital_contract_submission_id = ? AND digital_contract_submission_id <> ''
		ORDER BY id DESC LIMIT 1`+lock, submissionID).Scan(&id)
	if NoRows(err) {
		return 0, NotFound("contract with that signing submission")
	}
	return id, err
}

// recordSigningEvent records event key of a submission of contract id,
// and reports whether it is new (false: recorded before).
func (s ContractStore) recordSigningEvent(ctx context.Context, x Querier, id int64, submissionID, key string) (bool, error) {
	n, err := x.Exec(ctx, `INSERT INTO contract_signing_events (contract_id, submission_id, event_key, at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, submissionID, key, s.e.Arg(s.e.Now()))
	return n > 0, err
}

// ContractBySubmission implements ports.EvidenceStore.
func (s ContractStore) ContractBySubmission(ctx context.Context, submissionID string) (contract.Contract, error) {
	id, err := contractBySubmission(ctx, s.e.Read(), submissionID, "")
	if err != nil {
		return contract.Contract{}, err
	}
	return LoadContract(ctx, s.e.Read(), s.e, id, "")
}

// AddEvidence implements ports.EvidenceStore. The contract's row is
// locked, so two instances storing one submission's evidence store it
// once.
func (s ContractStore) AddEvidence(ctx context.Context, submissionID string, docs []ports.NewDocument, audit []contract.AuditEntry, onStored func([]contract.Document)) ([]contract.Document, bool, error) {
	var out []contract.Document
	applied := false
	err := s.e.WriteTx(ctx, func(x Querier) error {
		out, applied = nil, false
		id, err := contractBySubmission(ctx, x, submissionID, s.e.LockRow())
		if err != nil {
			return err
		}
		if applied, err = s.recordSigningEvent(ctx, x, id, submissionID, evidenceKey); err != nil {
			return err
		}
		if !applied {
			all, err := Documents(ctx, x, s.e, id)
			for _, d := range all {
				if d.Kind == contract.KindSigned || d.Kind == contract.KindAudit {
					out = append(out, d)
				}
			}
			return err
		}
		for _, nd := range docs {
			d := nd.Document
			d.ContractID = id
			if d.StorageKey, err = NewStorageKey(); err != nil {
				return err
			}
			if err := s.rows.WriteDocumentBytes(ctx, x, d, d.StorageKey, io.NewSectionReader(nd.Body, 0, d.Size)); err != nil {
				return fmt.Errorf("store the bytes of %q: %w", d.FileName, err)
			}
			if d.ID, err = InsertDocument(ctx, x, s.e, d); err != nil {
				return err
			}
			out = append(out, d)
		}
		if onStored != nil {
			onStored(out)
		}
		return InsertAudit(ctx, x, s.e, id, audit)
	})
	if err != nil {
		return nil, false, err
	}
	return out, applied, nil
}

// SignedDocumentBySHA256 implements ports.EvidenceStore, through the
// partial index contract_documents_signed_sha256.
func (s ContractStore) SignedDocumentBySHA256(ctx context.Context, sha string) (bool, error) {
	var one int
	err := s.e.Read().Row(ctx, `SELECT 1 FROM contract_documents WHERE sha256 = ? AND kind = 'signed' LIMIT 1`, sha).Scan(&one)
	if NoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("find a signed document by its SHA-256: %w", err)
	}
	return true, nil
}

// UpdateBySubmission implements ports.ContractSigningStore. The contract
// row is locked before the event is recorded, so two instances receiving
// one webhook apply it once.
func (s ContractStore) UpdateBySubmission(ctx context.Context, submissionID, eventKey string, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, bool, error) {
	var out contract.Contract
	applied := false
	err := s.e.WriteTx(ctx, func(x Querier) error {
		applied = false
		id, err := contractBySubmission(ctx, x, submissionID, s.e.LockRow())
		if err != nil {
			return err
		}
		if eventKey != "" {
			fresh, err := s.recordSigningEvent(ctx, x, id, submissionID, eventKey)
			if err != nil {
				return err
			}
			if !fresh {
				out, err = LoadContract(ctx, x, s.e, id, "")
				return err
			}
		}
		applied = true
		out, err = s.updateContract(ctx, x, id, fn)
		return err
	})
	if err != nil {
		return contract.Contract{}, false, err
	}
	return out, applied, nil
}
