package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"counsel/domain/contract"
)

// insertAudit writes entries for contract id, with each actor's name as
// it is now: a user's full name (or email when they have none), else the
// actor's own name.
func insertAudit(ctx context.Context, tx *sql.Tx, id int64, entries []contract.AuditEntry) error {
	names := map[int64]string{}
	for _, e := range entries {
		name := e.Actor.String()
		var userID any
		if e.Actor == contract.ActorUser {
			userID = e.ActorUserID
			n, ok := names[e.ActorUserID]
			if !ok {
				var err error
				if n, err = userName(ctx, tx, e.ActorUserID); err != nil {
					return err
				}
				names[e.ActorUserID] = n
			}
			name = n
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO contract_audit (contract_id, action, from_status, to_status,
			actor_kind, actor_user_id, actor_name, at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, string(e.Action), nullStatus(e.From), nullStatus(e.To), int(e.Actor), userID, name, ms(e.At), e.Details); err != nil {
			return err
		}
	}
	return nil
}

// userName is the name the audit trail shows for a user.
func userName(ctx context.Context, q queryer, id int64) (string, error) {
	var first, last, email string
	err := q.QueryRowContext(ctx, `SELECT first_name, last_name, email FROM users WHERE id = ?`, id).Scan(&first, &last, &email)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Sprintf("user %d", id), nil
	}
	if err != nil {
		return "", err
	}
	if n := strings.TrimSpace(first + " " + last); n != "" {
		return n, nil
	}
	return email, nil
}

func nullStatus(s contract.Status) any {
	if s == 0 {
		return nil
	}
	return int(s)
}

// History implements ports.ContractStore.
func (s *ContractStore) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var count int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM contract_audit WHERE contract_id = ?`, id).Scan(&count); err != nil {
		return nil, 0, err
	}
	// Every contract has at least its created entry, so an empty trail
	// means the id never existed.
	if count == 0 {
		return nil, 0, notFound("contract")
	}
	out := []contract.AuditEntry{}
	if limit == 0 || offset >= count {
		return out, count, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, contract_id, action, from_status, to_status, actor_kind, actor_user_id,
		actor_name, at, details FROM contract_audit WHERE contract_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, id, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var e contract.AuditEntry
		var from, to, user sql.NullInt64
		var action string
		var actor, at int64
		if err := rows.Scan(&e.ID, &e.ContractID, &action, &from, &to, &actor, &user, &e.ActorName, &at, &e.Details); err != nil {
			return nil, 0, err
		}
		e.Action, e.Actor, e.At = contract.Action(action), contract.Actor(actor), fromMs(at)
		e.From, e.To, e.ActorUserID = contract.Status(from.Int64), contract.Status(to.Int64), user.Int64
		out = append(out, e)
	}
	return out, count, rows.Err()
}
