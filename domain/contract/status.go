package contract

import (
	"fmt"
	"strconv"
	"strings"

	"counsel/domain"
)

// Status is where a contract is in its lifecycle. The integer codes are
// part of the API (a client may send "3" for WaitingForClientSignature) and
// of the stored data, so they never change.
type Status int

// Contract statuses with their wire codes.
const (
	Draft                     Status = 1
	ContractDesign            Status = 2
	WaitingForClientSignature Status = 3
	Signed                    Status = 4
	Declined                  Status = 5
	Expired                   Status = 6
	Terminated                Status = 7
	Archived                  Status = 8
)

// AllStatuses returns every status in code order.
func AllStatuses() []Status {
	return []Status{Draft, ContractDesign, WaitingForClientSignature, Signed, Declined, Expired, Terminated, Archived}
}

// Valid reports whether s is one of the eight statuses.
func (s Status) Valid() bool { return s >= Draft && s <= Archived }

// String returns the wire name ("WaitingForClientSignature"), or
// "Status(n)" for a value outside the enumeration.
func (s Status) String() string {
	if s.Valid() {
		return statusNames[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// statusNames are the wire names, by code.
var statusNames = [...]string{
	Draft:                     "Draft",
	ContractDesign:            "ContractDesign",
	WaitingForClientSignature: "WaitingForClientSignature",
	Signed:                    "Signed",
	Declined:                  "Declined",
	Expired:                   "Expired",
	Terminated:                "Terminated",
	Archived:                  "Archived",
}

// ParseStatus reads a status as its name, case-insensitively and ignoring
// spaces, '-' and '_' ("Contract Design", "waiting_for_client_signature"),
// or as its integer code ("3"). Anything else is an EINVALID *domain.Error
// whose message lists the accepted values, also filed under the field
// "status".
func ParseStatus(s string) (Status, error) {
	return parseEnum(s, "status", AllStatuses())
}

// Type is the kind of agreement. Its integer codes are stable like
// Status's.
type Type int

// Contract types with their wire codes.
const (
	ServiceAgreement       Type = 1
	EmploymentContract     Type = 2
	NonDisclosureAgreement Type = 3
	PartnershipAgreement   Type = 4
	LicenseAgreement       Type = 5
	Other                  Type = 6
)

// AllTypes returns every contract type in code order.
func AllTypes() []Type {
	return []Type{ServiceAgreement, EmploymentContract, NonDisclosureAgreement, PartnershipAgreement, LicenseAgreement, Other}
}

// Valid reports whether t is one of the six types.
func (t Type) Valid() bool { return t >= ServiceAgreement && t <= Other }

// String returns the wire name ("NonDisclosureAgreement"), or "Type(n)"
// for a value outside the enumeration.
func (t Type) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// typeNames are the wire names, by code.
var typeNames = [...]string{
	ServiceAgreement:       "ServiceAgreement",
	EmploymentContract:     "EmploymentContract",
	NonDisclosureAgreement: "NonDisclosureAgreement",
	PartnershipAgreement:   "PartnershipAgreement",
	LicenseAgreement:       "LicenseAgreement",
	Other:                  "Other",
}

// ParseType reads a contract type by the same rules as ParseStatus
// ("Non-Disclosure Agreement", "service_agreement", "6"). An unknown value
// is an EINVALID *domain.Error filed under the field "contractType".
func ParseType(s string) (Type, error) {
	return parseEnum(s, "contractType", AllTypes())
}

// parseEnum reads one of values by matchEnum's rules; anything else is
// enumError's 400, filed under field.
func parseEnum[T interface {
	~int
	fmt.Stringer
}](s, field string, values []T) (T, error) {
	for _, v := range values {
		if matchEnum(s, v.String(), int(v)) {
			return v, nil
		}
	}
	return 0, enumError(field, values)
}

// matchEnum reports whether s names the value called name with code code.
// The code is checked on the text with only surrounding spaces removed, so
// "-3" is not read as 3 after the '-' is dropped.
func matchEnum(s, name string, code int) bool {
	if t := strings.TrimSpace(s); t != "" && isDigits(t) {
		n, err := strconv.Atoi(t)
		return err == nil && n == code
	}
	return strings.EqualFold(squash(s), name)
}

// squash drops the separators the API ignores in enumeration names.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// enumError builds the 400 for an unknown enumeration value. It does not
// repeat the value, which may be long or hostile.
func enumError[T interface {
	~int
	fmt.Stringer
}](field string, values []T) error {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = fmt.Sprintf("%s (%d)", v, int(v))
	}
	msg := field + " must be one of " + strings.Join(names, ", ")
	return &domain.Error{Code: domain.EINVALID, Message: msg, Fields: map[string][]string{field: {msg}}}
}

// Actor is who asks for a status change; the rules differ for each.
type Actor int

// Actors of status changes.
const (
	// ActorUser is a signed-in user (through the API).
	ActorUser Actor = 1
	// ActorSigningProvider is the signing provider reporting a completed,
	// declined or expired submission.
	ActorSigningProvider Actor = 2
	// ActorSystem is the background expiry sweep.
	ActorSystem Actor = 3
)

// String returns the actor's name in the audit trail: "signing provider"
// or "system". For ActorUser it returns "user"; the audit trail shows the
// user's own name, which the caller knows.
func (a Actor) String() string {
	switch a {
	case ActorUser:
		return "user"
	case ActorSigningProvider:
		return "signing provider"
	case ActorSystem:
		return "system"
	}
	return "Actor(" + strconv.Itoa(int(a)) + ")"
}
