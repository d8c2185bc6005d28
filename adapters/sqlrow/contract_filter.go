package sqlrow

import (
	"strings"

	"counsel/domain/contract"
)

// ContractDialect is what the WHERE clause of a contract list needs of
// an engine beyond the shared SQL.
type ContractDialect interface {
	Times
	// OneOf returns a condition that col, a small-integer code column,
	// holds one of codes (at least one), and its arguments.
	OneOf(col string, codes []int) (cond string, args []any)
}

// ContractWhere is the one WHERE builder of a contract list on both
// engines: search (a condition the engine built for f.Search, with its
// arguments, or "" for none) and a condition for every other filtering
// field of f, all of which must hold. The contracts table is aliased c.
// A field added to contract.Filter gets its condition here.
func ContractWhere(d ContractDialect, f contract.Filter, search string, searchArgs []any) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if search != "" {
		add(search, searchArgs...)
	}
	if len(f.Statuses) > 0 {
		cond, a := d.OneOf("c.status", codes(f.Statuses))
		add(cond, a...)
	}
	if len(f.Types) > 0 {
		cond, a := d.OneOf("c.contract_type", codes(f.Types))
		add(cond, a...)
	}
	if f.IsSigned != nil {
		add(`c.is_signed = ?`, *f.IsSigned)
	}
	if f.IsDigital != nil {
		add(`c.is_digital = ?`, *f.IsDigital)
	}
	if f.MatterID != nil {
		add(`c.matter_id = ?`, *f.MatterID)
	}
	if f.ClientID != nil {
		add(`c.client_id = ?`, *f.ClientID)
	}
	if f.ProjectID != nil {
		add(`c.project_id = ?`, *f.ProjectID)
	}
	if col := relatedColumn(f.Related); col != "" {
		if f.RelatedID != nil {
			add(col+` = ?`, *f.RelatedID)
		} else {
			add(col + ` IS NOT NULL`)
		}
	}
	if f.StartFrom != nil {
		add(`c.start_date >= ?`, d.Arg(*f.StartFrom))
	}
	if f.StartTo != nil {
		add(`c.start_date <= ?`, d.Arg(*f.StartTo))
	}
	if f.EndFrom != nil {
		add(`c.end_date >= ?`, d.Arg(*f.EndFrom))
	}
	if f.EndTo != nil {
		add(`c.end_date <= ?`, d.Arg(*f.EndTo))
	}
	if f.OwnerID != nil {
		add(`c.owner_id = ?`, *f.OwnerID)
	}
	if f.NoticeFrom != nil {
		add(`c.notice_date >= ?`, d.Arg(*f.NoticeFrom))
	}
	if f.NoticeTo != nil {
		add(`c.notice_date <= ?`, d.Arg(*f.NoticeTo))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// OwnerNameCol is the owner's name as a column of a contract read (the
// contracts table aliased c): the user's full name, or email when they
// have none; NULL without an owner. One primary-key lookup per row read.
const OwnerNameCol = `(SELECT CASE WHEN trim(u.first_name || ' ' || u.last_name) = '' THEN u.email
		ELSE trim(u.first_name || ' ' || u.last_name) END FROM users u WHERE u.id = c.owner_id)`

// codes converts statuses or types to their integer codes.
func codes[T ~int](vs []T) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = int(v)
	}
	return out
}

// relatedColumn is the column of a related-entity kind, "" for none.
func relatedColumn(r contract.RelatedEntity) string {
	switch r {
	case contract.RelatedMatter:
		return "c.matter_id"
	case contract.RelatedClient:
		return "c.client_id"
	case contract.RelatedProject:
		return "c.project_id"
	}
	return ""
}
