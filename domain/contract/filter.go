package contract

import (
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
)

// MaxSearchLength bounds the Search text of a list filter, in characters.
const MaxSearchLength = 200

// SortField is what a contract list is ordered by. The id always breaks
// ties, in the same direction, so the order is stable across pages.
type SortField int

// Sort fields; SortUpdatedAt is the default.
const (
	SortUpdatedAt SortField = iota
	SortContractName
	SortStartDate
	SortEndDate
	SortAmount
	SortCreatedAt
)

// AllSortFields returns every sort field in the order the API lists them.
func AllSortFields() []SortField {
	return []SortField{SortContractName, SortStartDate, SortEndDate, SortAmount, SortCreatedAt, SortUpdatedAt}
}

// String returns the field's wire name (the JSON field it sorts by).
func (f SortField) String() string {
	switch f {
	case SortContractName:
		return "contractName"
	case SortStartDate:
		return "startDate"
	case SortEndDate:
		return "endDate"
	case SortAmount:
		return "amount"
	case SortCreatedAt:
		return "createdAt"
	}
	return "updatedAt"
}

// ParseSortField reads a sort field by name, with the enumeration rules
// of ParseStatus (case and separators ignored). "" is the default,
// updatedAt. Anything else is EINVALID filed under SortBy.
func ParseSortField(s string) (SortField, error) {
	if strings.TrimSpace(s) == "" {
		return SortUpdatedAt, nil
	}
	for _, f := range AllSortFields() {
		if strings.EqualFold(squash(s), f.String()) {
			return f, nil
		}
	}
	names := make([]string, 0, 6)
	for _, f := range AllSortFields() {
		names = append(names, f.String())
	}
	msg := "SortBy must be one of " + strings.Join(names, ", ")
	return 0, &domain.Error{Code: domain.EINVALID, Message: msg, Fields: map[string][]string{"SortBy": {msg}}}
}

// RelatedEntity is the kind of record of another system a contract can be
// linked to.
type RelatedEntity int

// Related entity kinds; RelatedNone means no related-entity filter.
const (
	RelatedNone    RelatedEntity = 0
	RelatedMatter  RelatedEntity = 1
	RelatedClient  RelatedEntity = 2
	RelatedProject RelatedEntity = 3
)

// String returns the kind's wire name.
func (r RelatedEntity) String() string {
	switch r {
	case RelatedMatter:
		return "Matter"
	case RelatedClient:
		return "Client"
	case RelatedProject:
		return "Project"
	}
	return ""
}

// ParseRelatedEntity reads Matter, Client or Project by the enumeration
// rules (also their codes 1, 2, 3). Anything else is EINVALID filed under
// RelatedEntityType.
func ParseRelatedEntity(s string) (RelatedEntity, error) {
	// enumError words it "RelatedEntityType must be one of Matter (1),
	// Client (2), Project (3)".
	return parseEnum(s, "RelatedEntityType", []RelatedEntity{RelatedMatter, RelatedClient, RelatedProject})
}

// Filter selects, orders and pages contracts (docs/decisions.md §5). Nil and
// empty fields do not filter. Every condition must hold.
type Filter struct {
	// Search is a case-insensitive substring of the name, description or
	// comments.
	Search   string
	Statuses []Status // any of them
	Types    []Type   // any of them
	IsSigned *bool
	// IsDigital selects contracts with (true) or without (false) a
	// digitalContractId.
	IsDigital *bool
	MatterID  *int64
	ClientID  *int64
	ProjectID *int64
	// Related with RelatedID selects contracts linked to that matter,
	// client or project; Related alone selects contracts linked to any.
	Related   RelatedEntity
	RelatedID *int64
	// Date ranges, both ends inclusive. A contract without the date never
	// matches a range on it.
	StartFrom, StartTo *time.Time
	EndFrom, EndTo     *time.Time
	// OwnerID selects the contracts of one owner.
	OwnerID *int64
	// NoticeFrom and NoticeTo bound the notice date (Contract.NoticeDate),
	// both inclusive.
	NoticeFrom, NoticeTo *time.Time

	SortBy   SortField
	SortDesc bool
	Limit    int64
	Offset   int64
}

// Validate checks the combinations the parameters alone cannot: field
// errors are keyed by the query parameter names.
func (f Filter) Validate() error {
	e := domain.FieldErrors{}
	if utf8.RuneCountInString(f.Search) > MaxSearchLength {
		e.Add("Search", "Search must be at most 200 characters")
	}
	if f.RelatedID != nil && f.Related == RelatedNone {
		e.Add("RelatedEntityId", "RelatedEntityId needs RelatedEntityType (Matter, Client or Project)")
	}
	if f.StartFrom != nil && f.StartTo != nil && f.StartTo.Before(*f.StartFrom) {
		e.Add("StartDateTo", "StartDateTo must not be before StartDateFrom")
	}
	if f.EndFrom != nil && f.EndTo != nil && f.EndTo.Before(*f.EndFrom) {
		e.Add("EndDateTo", "EndDateTo must not be before EndDateFrom")
	}
	if f.NoticeFrom != nil && f.NoticeTo != nil && f.NoticeTo.Before(*f.NoticeFrom) {
		e.Add("NoticeDateTo", "NoticeDateTo must not be before NoticeDateFrom")
	}
	if f.Limit < 0 {
		e.Add("Limit", "Limit must be a non-negative integer")
	}
	if f.Offset < 0 {
		e.Add("Offset", "Offset must be a non-negative integer")
	}
	return e.Err()
}
