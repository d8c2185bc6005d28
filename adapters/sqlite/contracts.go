package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/decimal"
	"counsel/ports"
)

// ContractStore implements ports.ContractStore.
type ContractStore struct {
	db *DB
	sqlrow.SigningRecords
	// knobs are the list planner's thresholds (contracts_list.go).
	knobs listKnobs
	// trace, when set, is told every query a list runs (the plan tests).
	trace func(query string, args []any)
}

var _ ports.ContractStore = (*ContractStore)(nil)

// NewContractStore returns the contract store of db.
func NewContractStore(db *DB) *ContractStore {
	return &ContractStore{db: db, SigningRecords: sqlrow.SigningRecords{E: engine{db: db}}, knobs: defaultKnobs}
}

// contractColumns are the columns scanContract reads, in order.
const contractColumns = `c.id, c.uuid, c.contract_name, c.contract_description, c.contract_type, c.status,
	c.start_date, c.end_date, c.amount, c.currency, c.is_signed, c.comments, c.matter_id, c.client_id, c.project_id,
	c.digital_contract_id, c.digital_contract_submission_id, c.created_at, c.updated_at,
	c.owner_id, c.notice_days, c.auto_renew, ` + sqlrow.OwnerNameCol

// contractRow holds the nullable columns while scanning.
type contractRow struct {
	start, end, amount            sql.NullInt64
	matter, client, project       sql.NullInt64
	typ, status, created, updated int64
	owner, noticeDays             sql.NullInt64
	ownerName                     sql.NullString
}

func (r *contractRow) fill(c *contract.Contract) {
	c.Type, c.Status = contract.Type(r.typ), contract.Status(r.status)
	c.StartDate, c.EndDate = fromNullMs(r.start), fromNullMs(r.end)
	if r.amount.Valid {
		a := decimal.FromScaled(r.amount.Int64, contract.AmountPlaces)
		c.Amount = &a
	}
	c.MatterID, c.ClientID, c.ProjectID = nullID(r.matter), nullID(r.client), nullID(r.project)
	c.CreatedAt, c.UpdatedAt = fromMs(r.created), fromMs(r.updated)
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

func scanContract(s rowScanner) (contract.Contract, error) {
	var c contract.Contract
	var r contractRow
	err := s.Scan(&c.ID, &c.UUID, &c.Name, &c.Description, &r.typ, &r.status, &r.start, &r.end, &r.amount,
		&c.Currency, &c.IsSigned, &c.Comments, &r.matter, &r.client, &r.project,
		&c.DigitalContractID, &c.DigitalContractSubmissionID, &r.created, &r.updated,
		&r.owner, &r.noticeDays, &c.AutoRenew, &r.ownerName)
	r.fill(&c)
	return c, err
}

func loadContract(ctx context.Context, q queryer, id int64) (contract.Contract, error) {
	c, err := scanContract(q.QueryRowContext(ctx, `SELECT `+contractColumns+` FROM contracts c WHERE c.id = ?`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, sqlrow.NotFound("contract")
	case err != nil:
		return c, fmt.Errorf("load contract %d: %w", id, err)
	}
	return c, nil
}

// amountCents encodes an amount as integer cents. Validate bounds amounts
// below 10^15, so only a value that skipped validation fails here.
func amountCents(a *decimal.Decimal) (any, error) {
	if a == nil {
		return nil, nil
	}
	v, ok := a.Round(contract.AmountPlaces).Scaled(contract.AmountPlaces)
	if !ok {
		return nil, domain.Errorf(domain.EINVALID, "amount is out of range")
	}
	return v, nil
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// nullDays is noticeDays as a column value.
func nullDays(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// nullOwner is ownerId as a column value (NULL for none).
func nullOwner(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// insertContractColumns are the columns a new contract is written with,
// in the order of insertContractArgs.
var insertContractColumns = strings.Fields(`uuid contract_name contract_description contract_type status
	start_date end_date amount currency is_signed comments matter_id client_id project_id
	digital_contract_id digital_contract_submission_id is_digital created_at updated_at
	owner_id notice_days auto_renew notice_date`)

// insertContractSQL inserts a contract; insertContractArgs are its
// arguments.
var insertContractSQL = `INSERT INTO contracts (` + strings.Join(insertContractColumns, ", ") + `)
	VALUES (` + strings.TrimSuffix(strings.Repeat("?, ", len(insertContractColumns)), ", ") + `)`

// insertContractArgs are the arguments of insertContractSQL for c, whose
// amount in cents (amountCents) is amount.
func insertContractArgs(c contract.Contract, amount any) []any {
	return []any{c.UUID, c.Name, c.Description, int(c.Type), int(c.Status), nullMs(c.StartDate), nullMs(c.EndDate), amount,
		c.Currency, c.IsSigned, c.Comments, nullInt(c.MatterID), nullInt(c.ClientID), nullInt(c.ProjectID),
		c.DigitalContractID, c.DigitalContractSubmissionID, c.IsDigital(), ms(c.CreatedAt), ms(c.UpdatedAt),
		nullOwner(c.OwnerID), nullDays(c.NoticeDays), c.AutoRenew, nullMs(c.NoticeDate())}
}

// CreateContract implements ports.ContractStore.
func (s *ContractStore) CreateContract(ctx context.Context, c contract.Contract, audit []contract.AuditEntry) (contract.Contract, error) {
	amount, err := amountCents(c.Amount)
	if err != nil {
		return contract.Contract{}, err
	}
	var out contract.Contract
	err = s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := s.db.txExec(ctx, tx, insertContractSQL, insertContractArgs(c, amount)...)
		if err != nil {
			return fmt.Errorf("insert contract %s: %w", c.UUID, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("insert contract %s: %w", c.UUID, err)
		}
		ports.Created(ctx, id)
		if err := insertAudit(ctx, tx, id, audit); err != nil {
			return fmt.Errorf("audit of contract %d: %w", id, err)
		}
		out, err = loadContract(ctx, tx, id)
		return err
	})
	return out, err
}

// Contract implements ports.ContractStore.
func (s *ContractStore) Contract(ctx context.Context, id int64) (contract.Contract, error) {
	return loadContract(ctx, reader{s.db}, id)
}

// UpdateContract implements ports.ContractStore.
func (s *ContractStore) UpdateContract(ctx context.Context, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error) {
	var out contract.Contract
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = updateContract(ctx, s.db, tx, id, fn)
		return err
	})
	return out, err
}

// updateContract loads contract id in tx, lets fn change it, and saves it
// with fn's entries; it returns the contract as stored.
// updateContractSQL writes every field of a contract; it is one of the
// writer's prepared statements (hotWrites), since preparing it compiles
// the word triggers.
const updateContractSQL = `UPDATE contracts SET contract_name = ?, contract_description = ?, contract_type = ?,
		status = ?, start_date = ?, end_date = ?, amount = ?, currency = ?, is_signed = ?, comments = ?,
		matter_id = ?, client_id = ?, project_id = ?, digital_contract_id = ?, digital_contract_submission_id = ?,
		is_digital = ?, updated_at = ?, owner_id = ?, notice_days = ?, auto_renew = ?, notice_date = ? WHERE id = ?`

func updateContract(ctx context.Context, db *DB, tx *sql.Tx, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error) {
	c, err := loadContract(ctx, tx, id)
	if err != nil {
		return contract.Contract{}, err
	}
	before := c
	entries, err := fn(&c)
	if err != nil {
		return contract.Contract{}, err
	}
	c.ID, c.UUID, c.CreatedAt = before.ID, before.UUID, before.CreatedAt
	amount, err := amountCents(c.Amount)
	if err != nil {
		return contract.Contract{}, err
	}
	if _, err := db.txExec(ctx, tx, updateContractSQL,
		c.Name, c.Description, int(c.Type), int(c.Status), nullMs(c.StartDate), nullMs(c.EndDate), amount, c.Currency,
		c.IsSigned, c.Comments, nullInt(c.MatterID), nullInt(c.ClientID), nullInt(c.ProjectID),
		c.DigitalContractID, c.DigitalContractSubmissionID, c.IsDigital(), ms(c.UpdatedAt),
		nullOwner(c.OwnerID), nullDays(c.NoticeDays), c.AutoRenew, nullMs(c.NoticeDate()), id); err != nil {
		return contract.Contract{}, fmt.Errorf("update contract %d: %w", id, err)
	}
	if err := insertAudit(ctx, tx, id, entries); err != nil {
		return contract.Contract{}, fmt.Errorf("audit of contract %d: %w", id, err)
	}
	return loadContract(ctx, tx, id)
}

// DeleteContract implements ports.ContractStore.
func (s *ContractStore) DeleteContract(ctx context.Context, id int64, fn func(c contract.Contract) ([]contract.AuditEntry, error)) ([]contract.Document, error) {
	var docs []contract.Document
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		c, err := loadContract(ctx, tx, id)
		if err != nil {
			return err
		}
		entries, err := fn(c)
		if err != nil {
			return err
		}
		if docs, err = loadDocuments(ctx, tx, id); err != nil {
			return fmt.Errorf("documents of contract %d: %w", id, err)
		}
		// The documents' rows go by ON DELETE CASCADE.
		if _, err := tx.ExecContext(ctx, `DELETE FROM contracts WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete contract %d: %w", id, err)
		}
		if err := insertAudit(ctx, tx, id, entries); err != nil {
			return fmt.Errorf("audit of contract %d: %w", id, err)
		}
		return nil
	})
	return docs, err
}

// DueForExpiry implements ports.ContractStore.
func (s *ContractStore) DueForExpiry(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	rows, err := s.db.query(ctx, `SELECT id FROM contracts INDEXED BY contracts_status_end
		WHERE status = ? AND end_date < ? ORDER BY end_date, id LIMIT ?`, int(contract.Signed), ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("contracts due for expiry: %w", err)
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("contracts due for expiry: %w", err)
	}
	return ids, nil
}

// ImportContracts inserts many contracts in one transaction, each with a
// created entry by user userID at its CreatedAt (and userID its owner
// unless it names one). It is for bulk imports
// and for seeding benchmarks; the API creates contracts one at a time.
// Each contract needs its UUID and valid fields (see contract.Validate).
// The contracts go in many to a statement (insertRows), and their
// entries in one statement after them.
func (s *ContractStore) ImportContracts(ctx context.Context, cs []contract.Contract, userID int64) error {
	rows := make([][]any, len(cs))
	for i, c := range cs {
		if c.OwnerID == 0 {
			c.OwnerID = userID
		}
		amount, err := amountCents(c.Amount)
		if err != nil {
			return err
		}
		rows[i] = insertContractArgs(c, amount)
	}
	return s.db.bulkWriteTx(ctx, func(tx *sql.Tx) error {
		name, err := userName(ctx, tx, userID)
		if err != nil {
			return fmt.Errorf("importing user %d: %w", userID, err)
		}
		// Ids only grow (AUTOINCREMENT) and this is the only writer: the
		// contracts after last are the imported ones.
		var last int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM contracts`).Scan(&last); err != nil {
			return err
		}
		if err := insertRows(ctx, tx, "contracts", insertContractColumns, rows); err != nil {
			return fmt.Errorf("import %d contracts: %w", len(cs), err)
		}
		// The created entry's status and time are the contract's own.
		if _, err := tx.ExecContext(ctx, `INSERT INTO contract_audit (contract_id, action, to_status, actor_kind,
			actor_user_id, actor_name, at) SELECT id, ?, status, ?, ?, ?, created_at FROM contracts WHERE id > ? ORDER BY id`,
			string(contract.ActionCreated), int(contract.ActorUser), userID, name, last); err != nil {
			return fmt.Errorf("audit of the imported contracts: %w", err)
		}
		// The load wrote its full-text indexes in many segments.
		return mergeFullText(ctx, tx, 0, fullTextIndexes...)
	})
}
