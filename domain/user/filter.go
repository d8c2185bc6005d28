package user

import (
	"slices"
	"strings"
	"unicode/utf8"

	"counsel/domain"
)

// Filter selects users for a list (docs/decisions.md §4). Deleted users never
// match. Lists are sorted by last name, first name and id.
type Filter struct {
	Active *bool
	// RequireBillingRate keeps only users with a billing rate above 0.
	RequireBillingRate bool
	// Search is a case-insensitive substring of the full name or email
	// (a first or last name is a substring of the full name).
	Search   string
	IsLegal  *bool
	IsStaff  *bool
	OfficeID *int64
	// Reviewers keeps only users permitted to review every offering of
	// OfferingIDs, or any offering when OfferingIDs is empty.
	Reviewers   bool
	OfferingIDs []int64
	// StaffID keeps only that user (0: any); the console lists one
	// person's pay records with it.
	StaffID int64
	// SortDesc reverses the order (Z to A).
	SortDesc bool
	Limit    int64
	Offset   int64
}

// Normalize trims the search term and turns each run of white space in it
// into one space (so it never holds SearchKey's line break), and sorts and
// de-duplicates the offering ids.
func (f *Filter) Normalize() {
	f.Search = strings.Join(strings.Fields(f.Search), " ")
	slices.Sort(f.OfferingIDs)
	f.OfferingIDs = slices.Compact(f.OfferingIDs)
}

// Prepare readies f for a list query: it normalizes f, validates it, and
// caps its limit at maxLimit.
func (f *Filter) Prepare(maxLimit int64) error {
	f.Normalize()
	if err := f.Validate(); err != nil {
		return err
	}
	f.Limit = min(f.Limit, maxLimit)
	return nil
}

// Validate checks the bounds of a normalized filter. Fields are keyed by
// the query parameter names.
func (f Filter) Validate() error {
	e := domain.FieldErrors{}
	if utf8.RuneCountInString(f.Search) > MaxSearchLength {
		e.Add("Search", "Search must be at most 200 characters")
	}
	if len(f.OfferingIDs) > MaxOfferingIDs {
		e.Add("offeringIds", "at most 100 offeringIds")
	}
	for _, id := range f.OfferingIDs {
		if id <= 0 {
			e.Add("offeringIds", "offeringIds must be positive integers")
			break
		}
	}
	if f.Limit < 0 {
		e.Add("Limit", "Limit must be a non-negative integer")
	}
	if f.Offset < 0 {
		e.Add("Offset", "Offset must be a non-negative integer")
	}
	return e.Err()
}

// SearchTerm is the form of Search the store looks for in SearchKey.
func (f Filter) SearchTerm() string { return strings.ToLower(f.Search) }

// ReviewerIDs validates the user ids of a reviewer change: at least one,
// at most MaxReviewerIDs, all positive. It returns them sorted without
// duplicates.
func ReviewerIDs(ids []int64) ([]int64, error) {
	e := domain.FieldErrors{}
	switch {
	case len(ids) == 0:
		e.Add("userIds", "userIds must name at least one user")
	case len(ids) > MaxReviewerIDs:
		e.Add("userIds", "at most 1000 userIds")
	}
	for _, id := range ids {
		if id <= 0 {
			e.Add("userIds", "userIds must be positive integers")
			break
		}
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out), nil
}
