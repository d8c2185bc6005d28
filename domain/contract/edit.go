package contract

import (
	"strings"
	"time"

	"counsel/domain/decimal"
)

// MaxBulkIDs bounds the contracts of one bulk status change, so one
// request is bounded work.
const MaxBulkIDs = 1000

// Optional is a change to a nullable field: Set false leaves the field as
// it is; Set with a nil Value clears it.
type Optional[T any] struct {
	Set   bool
	Value *T
}

// Some is an Optional that sets v.
func Some[T any](v T) Optional[T] { return Optional[T]{Set: true, Value: &v} }

// Edit is a user's change to a contract (PUT): nil pointers and unset
// Optionals leave their fields alone. Clearing a text field is a pointer
// to "". Status goes through the state machine; the other fields are
// free.
type Edit struct {
	Name        *string
	Description *string
	Type        *Type
	Status      *Status
	StartDate   Optional[time.Time]
	EndDate     Optional[time.Time]
	Amount      Optional[decimal.Decimal]
	Currency    *string
	Comments    *string
	MatterID    Optional[int64]
	ClientID    Optional[int64]
	ProjectID   Optional[int64]
	// OwnerID, when set, hands the contract to that user (the use case
	// checks they are active).
	OwnerID    *int64
	NoticeDays Optional[int]
	AutoRenew  *bool
}

// EditResult is what an edit changed, for the audit trail.
type EditResult struct {
	// Fields lists the JSON names of the changed fields other than status,
	// in DTO order.
	Fields []string
	Status StatusChange
}

// Changed reports whether the edit changed anything.
func (r EditResult) Changed() bool { return len(r.Fields) > 0 || r.Status.Changed }

// Audit returns the entries of the edit made by userID at at: an updated
// entry naming the changed fields, then a statusChanged entry.
func (r EditResult) Audit(userID int64, at time.Time) []AuditEntry {
	var out []AuditEntry
	if len(r.Fields) > 0 {
		out = append(out, AuditEntry{Action: ActionUpdated, Actor: ActorUser, ActorUserID: userID, At: at,
			Details: "changed " + strings.Join(r.Fields, ", ")})
	}
	return append(out, r.Status.Audit(ActionStatusChanged, userID, at, "")...)
}

// Apply makes a user's edit: it sets the given fields, normalizes and
// validates them, and then changes the status through the state machine
// (CheckTransition with ActorUser). Invalid fields are EINVALID and an
// illegal status change is ECONFLICT; on any error c is left as it was.
// UpdatedAt is the caller's to set when the result Changed.
func (c *Contract) Apply(e Edit) (EditResult, error) {
	next := *c
	setPtr(&next.Name, e.Name)
	setPtr(&next.Description, e.Description)
	setPtr(&next.Type, e.Type)
	setPtr(&next.Currency, e.Currency)
	setPtr(&next.Comments, e.Comments)
	setOpt(&next.StartDate, e.StartDate)
	setOpt(&next.EndDate, e.EndDate)
	setOpt(&next.Amount, e.Amount)
	setOpt(&next.MatterID, e.MatterID)
	setOpt(&next.ClientID, e.ClientID)
	setOpt(&next.ProjectID, e.ProjectID)
	setPtr(&next.OwnerID, e.OwnerID)
	setOpt(&next.NoticeDays, e.NoticeDays)
	setPtr(&next.AutoRenew, e.AutoRenew)
	next.Normalize()
	if err := next.Validate(); err != nil {
		return EditResult{}, err
	}
	res := EditResult{Fields: Diff(*c, next)}
	if e.Status != nil {
		ch, err := next.ChangeStatus(*e.Status, ActorUser)
		if err != nil {
			return EditResult{}, err
		}
		res.Status = ch
	}
	*c = next
	return res, nil
}

func setPtr[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setOpt[T any](dst **T, o Optional[T]) {
	if !o.Set {
		return
	}
	if o.Value == nil {
		*dst = nil
		return
	}
	v := *o.Value
	*dst = &v
}

// Diff lists the JSON names of the user-editable fields (not status) whose
// values differ between a and b, in DTO order. Amounts compare as numbers
// (1.5 equals 1.50) and times as instants.
func Diff(a, b Contract) []string {
	var out []string
	add := func(differ bool, name string) {
		if differ {
			out = append(out, name)
		}
	}
	add(a.Name != b.Name, "contractName")
	add(a.Description != b.Description, "contractDescription")
	add(a.Type != b.Type, "contractType")
	add(!sameTime(a.StartDate, b.StartDate), "startDate")
	add(!sameTime(a.EndDate, b.EndDate), "endDate")
	add(!sameAmount(a.Amount, b.Amount), "amount")
	add(a.Currency != b.Currency, "currency")
	add(a.Comments != b.Comments, "comments")
	add(!sameID(a.MatterID, b.MatterID), "matterId")
	add(!sameID(a.ClientID, b.ClientID), "clientId")
	add(!sameID(a.ProjectID, b.ProjectID), "projectId")
	add(a.OwnerID != b.OwnerID, "ownerId")
	add(!sameDays(a.NoticeDays, b.NoticeDays), "noticeDays")
	add(a.AutoRenew != b.AutoRenew, "autoRenew")
	return out
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func sameAmount(a, b *decimal.Decimal) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func sameID(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func sameDays(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// KeyDatesChanged reports whether b's notice date differs from a's, which
// re-arms the key-date reminders not yet passed (docs/decisions.md §16).
func KeyDatesChanged(a, b Contract) bool {
	return !sameTime(a.NoticeDate(), b.NoticeDate())
}
