package http

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/decimal"
)

// The contract bodies keep each field as sent, so a wrong field is
// reported with the others (not at the first) and absent is told from
// null. decodeAs reads them; the methods below convert them.

// rawIn is a request field as sent: absent, null or a JSON value.
type rawIn struct {
	set bool
	raw json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *rawIn) UnmarshalJSON(b []byte) error {
	f.set, f.raw = true, append(json.RawMessage(nil), b...)
	return nil
}

func (f rawIn) null() bool { return f.set && string(f.raw) == "null" }

type (
	textIn struct{ rawIn } // a string; null reads as ""
	codeIn struct{ rawIn } // an enumeration by name (any spelling) or integer code
	idIn   struct{ rawIn } // an integer id
	idsIn  struct{ rawIn } // an array of integer ids
)

// contractIn is the body of a contract creation or change. Creation
// ignores status, isSigned, the UUID and the digital ids: the service
// sets them.
type contractIn struct {
	ContractName        textIn    `json:"contractName" doc:"required on creation: not blank, at most 200 characters"`
	ContractDescription textIn    `json:"contractDescription" doc:"at most 20000 characters"`
	ContractType        codeIn    `json:"contractType" names:"ContractType" doc:"default Other; null is refused on a change"`
	Status              codeIn    `json:"status" names:"ContractStatus" doc:"ignored on creation (always Draft); a change goes through the state machine: an illegal one is a 409 naming both statuses"`
	StartDate           dateIn    `json:"startDate"`
	EndDate             dateIn    `json:"endDate" doc:"not before startDate"`
	Amount              numberIn  `json:"amount" doc:">= 0, below 10^15; rounded half away from zero to 2 decimals"`
	Currency            textIn    `json:"currency" doc:"a 3-letter ISO 4217 code (upper-cased)"`
	Comments            textIn    `json:"comments" doc:"at most 20000 characters"`
	MatterID            idIn      `json:"matterId"`
	ClientID            idIn      `json:"clientId"`
	ProjectID           idIn      `json:"projectId"`
	OwnerID             idIn      `json:"ownerId" doc:"an active user; default the creator; null is refused on a change"`
	NoticeDays          idIn      `json:"noticeDays" doc:"0..3650 or null: notice must be given that many days before endDate"`
	AutoRenew           Opt[bool] `json:"autoRenew" doc:"default false"`
}

// statusChangeIn is the body of a status change of several contracts.
type statusChangeIn struct {
	IDs    idsIn  `json:"ids" required:"true" doc:"1 to 1000 contract ids"`
	Status codeIn `json:"status" required:"true" names:"ContractStatus"`
}

// text reads a string field: nil when absent, "" when null.
func (f textIn) text(name string, e domain.FieldErrors) *string {
	if !f.set {
		return nil
	}
	var s string
	if !f.null() {
		if err := json.Unmarshal(f.raw, &s); err != nil {
			e.Add(name, name+" must be a string")
			return nil
		}
	}
	return &s
}

// value returns the enumeration as text; ok is false when it is absent
// or null (the caller decides what null means).
func (f codeIn) value() (v string, ok bool) {
	if !f.set || f.null() {
		return "", false
	}
	var s string
	if json.Unmarshal(f.raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(f.raw, &n) == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String(), true
		}
	}
	return "\x00", true // neither a string nor an integer: never a valid value
}

// status reads a status: nil when absent or null.
func (f codeIn) status(name string, e domain.FieldErrors) *contract.Status {
	v, ok := f.value()
	if !ok {
		return nil
	}
	st, err := contract.ParseStatus(v)
	if err != nil {
		e.Add(name, domain.ErrorMessage(err))
		return nil
	}
	return &st
}

// contractType reads a type: nil when absent or null.
func (f codeIn) contractType(e domain.FieldErrors) *contract.Type {
	v, ok := f.value()
	if !ok {
		return nil
	}
	x, err := contract.ParseType(v)
	if err != nil {
		e.Add("contractType", domain.ErrorMessage(err))
		return nil
	}
	return &x
}

// optional reads a nullable date: unset when absent, set and empty when
// null.
func (d dateIn) opt(name string, e domain.FieldErrors) contract.Optional[time.Time] {
	switch {
	case !d.set:
		return contract.Optional[time.Time]{}
	case d.null:
		return contract.Optional[time.Time]{Set: true}
	}
	t, err := parseTime(d.raw)
	if d.notString || err != nil {
		e.Add(name, name+" must be an RFC 3339 date-time or a yyyy-mm-dd date")
		return contract.Optional[time.Time]{}
	}
	return contract.Some(t)
}

// amount reads a nullable exact decimal given as a JSON number or a
// numeric string; it never passes through a float.
func (n numberIn) amount(e domain.FieldErrors) contract.Optional[decimal.Decimal] {
	switch {
	case !n.set:
		return contract.Optional[decimal.Decimal]{}
	case n.null:
		return contract.Optional[decimal.Decimal]{Set: true}
	}
	d, err := decimal.Parse(strings.TrimSpace(n.raw))
	if err != nil {
		e.Add("amount", "amount must be a decimal number")
		return contract.Optional[decimal.Decimal]{}
	}
	return contract.Some(d)
}

// id reads a nullable integer id.
func (f idIn) id(name string, e domain.FieldErrors) contract.Optional[int64] {
	switch {
	case !f.set:
		return contract.Optional[int64]{}
	case f.null():
		return contract.Optional[int64]{Set: true}
	}
	var n json.Number
	// A quoted number is refused: ids are JSON integers.
	if f.raw[0] == '"' || json.Unmarshal(f.raw, &n) != nil {
		e.Add(name, name+" must be an integer")
		return contract.Optional[int64]{}
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		e.Add(name, name+" must be an integer")
		return contract.Optional[int64]{}
	}
	return contract.Some(v)
}

// owner reads ownerId, a positive integer id.
func owner(f idIn, e domain.FieldErrors) contract.Optional[int64] {
	o := f.id("ownerId", e)
	if o.Value != nil && *o.Value <= 0 {
		e.Add("ownerId", "ownerId must be a positive integer")
		return contract.Optional[int64]{}
	}
	return o
}

// noticeDays reads noticeDays, a nullable integer; the range is the
// domain's to check.
func noticeDays(f idIn, e domain.FieldErrors) contract.Optional[int] {
	o := f.id("noticeDays", e)
	if !o.Set || o.Value == nil {
		return contract.Optional[int]{Set: o.Set}
	}
	n := *o.Value
	if n < -1 || n > contract.MaxNoticeDays+1 {
		n = contract.MaxNoticeDays + 1 // out of range either way, without overflowing int
	}
	return contract.Some(int(n))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// contract reads a creation.
func (in contractIn) contract() (contract.Contract, error) {
	e := domain.FieldErrors{}
	c := contract.Contract{
		Name:        deref(in.ContractName.text("contractName", e)),
		Description: deref(in.ContractDescription.text("contractDescription", e)),
		Currency:    deref(in.Currency.text("currency", e)),
		Comments:    deref(in.Comments.text("comments", e)),
		StartDate:   in.StartDate.opt("startDate", e).Value,
		EndDate:     in.EndDate.opt("endDate", e).Value,
		Amount:      in.Amount.amount(e).Value,
		MatterID:    in.MatterID.id("matterId", e).Value,
		ClientID:    in.ClientID.id("clientId", e).Value,
		ProjectID:   in.ProjectID.id("projectId", e).Value,
		OwnerID:     deref(owner(in.OwnerID, e).Value), // absent or null: the creator
		NoticeDays:  noticeDays(in.NoticeDays, e).Value,
		AutoRenew:   deref(optBool(in.AutoRenew, "autoRenew", e)),
	}
	if t := in.ContractType.contractType(e); t != nil {
		c.Type = *t
	}
	return c, invalid(e)
}

// edit reads a change.
func (in contractIn) edit() (contract.Edit, error) {
	e := domain.FieldErrors{}
	ed := contract.Edit{
		Name:        in.ContractName.text("contractName", e),
		Description: in.ContractDescription.text("contractDescription", e),
		Currency:    in.Currency.text("currency", e),
		Comments:    in.Comments.text("comments", e),
		StartDate:   in.StartDate.opt("startDate", e),
		EndDate:     in.EndDate.opt("endDate", e),
		Amount:      in.Amount.amount(e),
		MatterID:    in.MatterID.id("matterId", e),
		ClientID:    in.ClientID.id("clientId", e),
		ProjectID:   in.ProjectID.id("projectId", e),
		Status:      in.Status.status("status", e),
		Type:        in.ContractType.contractType(e),
		OwnerID:     owner(in.OwnerID, e).Value,
		NoticeDays:  noticeDays(in.NoticeDays, e),
		AutoRenew:   optBool(in.AutoRenew, "autoRenew", e),
	}
	if in.OwnerID.null() {
		e.Add("ownerId", "ownerId cannot be null")
	}
	if in.ContractType.null() {
		e.Add("contractType", "contractType cannot be null")
	}
	if in.Status.null() {
		e.Add("status", "status cannot be null")
	}
	return ed, invalid(e)
}

// statusChange reads the ids and the status.
func (in statusChangeIn) statusChange() (statusChange, error) {
	e := domain.FieldErrors{}
	var out statusChange
	if !in.IDs.set || in.IDs.null() {
		e.Add("ids", "ids is required")
	} else if err := json.Unmarshal(in.IDs.raw, &out.ids); err != nil {
		e.Add("ids", "ids must be an array of integers")
	}
	st := in.Status.status("status", e)
	if st == nil && e["status"] == nil {
		e.Add("status", "status is required")
	}
	if st != nil {
		out.status = *st
	}
	return out, invalid(e)
}

type statusChange struct {
	ids    []int64
	status contract.Status
}
