package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
)

// contractRows writes a contract's row with the writer's prepared
// statements (hotWrites) and a document's bytes in chunks.
type contractRows struct{ db *DB }

func (r contractRows) InsertContract(ctx context.Context, x sqlrow.Querier, c contract.Contract) (int64, error) {
	tx, err := writeTxOf(x)
	if err != nil {
		return 0, err
	}
	amount, err := sqlrow.ContractAmount(c.Amount)
	if err != nil {
		return 0, err
	}
	res, err := r.db.txExec(ctx, tx, insertContractSQL, insertContractArgs(c, amount)...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (r contractRows) SaveContract(ctx context.Context, x sqlrow.Querier, c contract.Contract) error {
	tx, err := writeTxOf(x)
	if err != nil {
		return err
	}
	amount, err := sqlrow.ContractAmount(c.Amount)
	if err != nil {
		return err
	}
	_, err = r.db.txExec(ctx, tx, updateContractSQL,
		c.Name, c.Description, int(c.Type), int(c.Status), nullMs(c.StartDate), nullMs(c.EndDate), amount, c.Currency,
		c.IsSigned, c.Comments, nullInt(c.MatterID), nullInt(c.ClientID), nullInt(c.ProjectID),
		c.DigitalContractID, c.DigitalContractSubmissionID, c.IsDigital(), ms(c.UpdatedAt),
		sqlrow.NullOwner(c.OwnerID), nullDays(c.NoticeDays), c.AutoRenew, nullMs(c.NoticeDate()), c.ID)
	return err
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
// amount in cents (sqlrow.ContractAmount) is amount.
func insertContractArgs(c contract.Contract, amount any) []any {
	return []any{c.UUID, c.Name, c.Description, int(c.Type), int(c.Status), nullMs(c.StartDate), nullMs(c.EndDate), amount,
		c.Currency, c.IsSigned, c.Comments, nullInt(c.MatterID), nullInt(c.ClientID), nullInt(c.ProjectID),
		c.DigitalContractID, c.DigitalContractSubmissionID, c.IsDigital(), ms(c.CreatedAt), ms(c.UpdatedAt),
		sqlrow.NullOwner(c.OwnerID), nullDays(c.NoticeDays), c.AutoRenew, nullMs(c.NoticeDate())}
}

// updateContractSQL writes every field of a contract; it is one of the
// writer's prepared statements (hotWrites), since preparing it compiles
// the word triggers.
const updateContractSQL = `UPDATE contracts SET contract_name = ?, contract_description = ?, contract_type = ?,
		status = ?, start_date = ?, end_date = ?, amount = ?, currency = ?, is_signed = ?, comments = ?,
		matter_id = ?, client_id = ?, project_id = ?, digital_contract_id = ?, digital_contract_submission_id = ?,
		is_digital = ?, updated_at = ?, owner_id = ?, notice_days = ?, auto_renew = ?, notice_date = ? WHERE id = ?`

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
		amount, err := sqlrow.ContractAmount(c.Amount)
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
