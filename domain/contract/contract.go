// Package contract is the contract aggregate: its fields, their validation,
// and the status state machine, written as a table of allowed transitions
// (transition.go) that every status change goes through, whoever asks for
// it: a user through the API, the signing provider, or the expiry sweep.
//
// A contract is digital when it has a DigitalContractID (the signing
// provider's template id). Non-digital contracts are tracked by hand and
// may move between any statuses; digital ones follow the signing process.
package contract

import (
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/decimal"

	"github.com/google/uuid"
)

// Limits on contract fields.
const (
	// MaxNameLength is the longest contractName, in characters.
	MaxNameLength = 200
	// AmountPlaces is the number of fraction digits an amount keeps.
	AmountPlaces = 2
	// MaxAmountDigits bounds an amount below 10^15, so that it fits an
	// int64 of cents (decimal.Scaled) with room to spare.
	MaxAmountDigits = 15
	// MaxTextLength is the longest contractDescription or comments, in
	// characters: enough for any note, small enough to keep rows and the
	// search index compact.
	MaxTextLength = 20000
	// MaxNoticeDays is the largest noticeDays (ten years).
	MaxNoticeDays = 3650
)

// Contract is a legal contract tracked by the firm.
type Contract struct {
	ID          int64
	UUID        string // contractUUId, set once on create
	Name        string // contractName
	Description string // contractDescription
	Type        Type   // contractType
	Status      Status
	StartDate   *time.Time
	EndDate     *time.Time
	// Amount is nil when the contract has no amount.
	Amount   *decimal.Decimal
	Currency string // ISO 4217, upper case, or "" for none
	IsSigned bool
	Comments string

	// Related entities of other systems; nil when not linked.
	MatterID  *int64
	ClientID  *int64
	ProjectID *int64

	// DigitalContractID is the signing provider's template id; a contract
	// that has one is digital.
	DigitalContractID string
	// DigitalContractSubmissionID is the latest signing submission's id.
	DigitalContractSubmissionID string

	// OwnerID is the user answerable for the contract (ownerId): the
	// creator unless set otherwise; 0 only for a contract whose creator
	// is unknown (imported without one).
	OwnerID int64
	// OwnerName is the owner's name as the store read it (full name, or
	// email without one), for display; not written.
	OwnerName string
	// NoticeDays is how many days before EndDate notice must be given
	// (noticeDays, 0..MaxNoticeDays); nil when not stated.
	NoticeDays *int
	// AutoRenew is whether the contract renews by itself unless notice
	// is given (autoRenew).
	AutoRenew bool

	CreatedAt time.Time
	UpdatedAt time.Time
}

// IsDigital reports whether the contract goes through digital signing.
func (c *Contract) IsDigital() bool { return c.DigitalContractID != "" }

// NoticeDate is the last day notice can be given (docs/decisions.md §16):
// EndDate minus NoticeDays, or EndDate when NoticeDays is nil; nil
// without an EndDate. Stores keep it in a column so lists filter on it.
func (c Contract) NoticeDate() *time.Time {
	return NoticeDate(c.EndDate, c.NoticeDays)
}

// NoticeDate is end minus days days (end when days is nil), nil when end
// is nil.
func NoticeDate(end *time.Time, days *int) *time.Time {
	if end == nil {
		return nil
	}
	t := end.UTC()
	if days != nil {
		t = t.AddDate(0, 0, -*days)
	}
	return &t
}

// IsLive reports whether the contract is in force for key-date reminders
// (docs/decisions.md §16): Signed, or non-digital and neither Draft,
// Expired, Terminated nor Archived.
func (c Contract) IsLive() bool {
	if c.Status == Signed {
		return true
	}
	if c.IsDigital() {
		return false
	}
	switch c.Status {
	case Draft, Expired, Terminated, Archived:
		return false
	}
	return true
}

// Normalize puts user input in canonical form before Validate: it trims
// the name, trims and upper-cases the currency, rounds the amount to two
// places half away from zero (12.345 becomes 12.35: more places are
// rounded, not refused) and gives a contract without a type (0) the type
// Other, since the API does not require one.
func (c *Contract) Normalize() {
	c.Name = strings.TrimSpace(c.Name)
	c.Currency = strings.ToUpper(strings.TrimSpace(c.Currency))
	if c.Amount != nil {
		a := c.Amount.Round(AmountPlaces)
		c.Amount = &a
	}
	if c.Type == 0 {
		c.Type = Other
	}
}

// Validate checks the contract's fields. It returns nil or an EINVALID
// *domain.Error whose Fields are keyed by the JSON field names
// (contractName, contractType, status, endDate, amount, currency,
// contractDescription, comments, matterId, clientId, projectId,
// noticeDays, ownerId). Whether the owner is an active user is the use
// case's to check. It does
// not change c; call Normalize first for input from a client.
func (c *Contract) Validate() error {
	f := domain.FieldErrors{}
	name := strings.TrimSpace(c.Name)
	if name == "" {
		f.Add("contractName", "contractName is required")
	} else if utf8.RuneCountInString(name) > MaxNameLength {
		f.Add("contractName", "contractName must be at most 200 characters")
	}
	if !c.Type.Valid() {
		f.Add("contractType", enumMessage("contractType", AllTypes()))
	}
	if !c.Status.Valid() {
		f.Add("status", enumMessage("status", AllStatuses()))
	}
	if c.StartDate != nil && c.EndDate != nil && c.EndDate.Before(*c.StartDate) {
		f.Add("endDate", "endDate must not be before startDate")
	}
	if c.Amount != nil {
		a := c.Amount.Round(AmountPlaces)
		if a.Sign() < 0 {
			f.Add("amount", "amount must not be negative")
		} else if a.Cmp(decimal.New(1, -MaxAmountDigits)) >= 0 {
			f.Add("amount", "amount must be less than 1000000000000000")
		}
	}
	if cur := strings.ToUpper(strings.TrimSpace(c.Currency)); cur != "" && !IsCurrencyCode(cur) {
		f.Add("currency", "currency must be a 3-letter ISO 4217 code")
	}
	if utf8.RuneCountInString(c.Description) > MaxTextLength {
		f.Add("contractDescription", "contractDescription must be at most 20000 characters")
	}
	if utf8.RuneCountInString(c.Comments) > MaxTextLength {
		f.Add("comments", "comments must be at most 20000 characters")
	}
	if c.NoticeDays != nil && (*c.NoticeDays < 0 || *c.NoticeDays > MaxNoticeDays) {
		f.Add("noticeDays", "noticeDays must be between 0 and 3650")
	}
	if c.OwnerID < 0 {
		f.Add("ownerId", "ownerId must be a positive integer")
	}
	for _, id := range []struct {
		name string
		v    *int64
	}{{"matterId", c.MatterID}, {"clientId", c.ClientID}, {"projectId", c.ProjectID}} {
		if id.v != nil && *id.v <= 0 {
			f.Add(id.name, id.name+" must be a positive integer")
		}
	}
	return f.Err()
}

// enumMessage is the field message of an unknown enumeration value.
func enumMessage[T interface {
	~int
	String() string
}](field string, values []T) string {
	return domain.ErrorMessage(enumError(field, values))
}

// StatusChange is what a status change did, for the audit trail.
type StatusChange struct {
	From, To Status
	Actor    Actor
	// Changed is false when the contract already had the status: nothing
	// happened and callers write no audit row.
	Changed bool
	// SignedNow is true when this change set IsSigned.
	SignedNow bool
}

// ChangeStatus moves the contract to status to on behalf of actor if
// CheckTransition allows it, and returns what changed. On an error the
// contract is left as it was. Reaching Signed sets IsSigned (all parties
// signed, or a user recorded a paper contract as signed); leaving Signed
// does not clear it, since the contract was signed. UpdatedAt is the
// caller's to set, from its own clock.
func (c *Contract) ChangeStatus(to Status, actor Actor) (StatusChange, error) {
	ch := StatusChange{From: c.Status, To: to, Actor: actor}
	if err := CheckTransition(c.Status, to, actor, c.IsDigital()); err != nil {
		return ch, err
	}
	if c.Status == to {
		return ch, nil
	}
	c.Status = to
	ch.Changed = true
	if to == Signed && !c.IsSigned {
		c.IsSigned = true
		ch.SignedNow = true
	}
	return ch, nil
}

// SubmitForSigning records that the contract was sent for signing: it
// stores the provider's template id (kept when empty, for a resubmission
// on the existing template) and submission id, and moves the contract to
// WaitingForClientSignature. CheckSubmitForSigning decides whether the
// contract's status allows it; on an error nothing changes. A resubmission
// after a decline starts unsigned.
func (c *Contract) SubmitForSigning(templateID, submissionID string) (StatusChange, error) {
	ch := StatusChange{From: c.Status, To: WaitingForClientSignature, Actor: ActorUser}
	if err := CheckSubmitForSigning(c.Status); err != nil {
		return ch, err
	}
	if templateID == "" && c.DigitalContractID == "" {
		return ch, domain.Errorf(domain.EINVALID, "a submission needs a signing template")
	}
	if submissionID == "" {
		return ch, domain.Errorf(domain.EINVALID, "a submission needs an id")
	}
	if templateID != "" {
		c.DigitalContractID = templateID
	}
	c.DigitalContractSubmissionID = submissionID
	c.Status = WaitingForClientSignature
	c.IsSigned = false
	ch.Changed = true
	return ch, nil
}

// ShouldExpire reports whether the expiry sweep must move c to Expired:
// it is Signed and its end date is before now. A contract without an end
// date never expires by itself.
func ShouldExpire(c Contract, now time.Time) bool {
	return c.Status == Signed && c.EndDate != nil && c.EndDate.Before(now)
}

// NewUUID returns a random (version 4) UUID for contractUUId, read from
// random (crypto/rand in production, a fixed stream in tests).
func NewUUID(random io.Reader) (string, error) {
	u, err := uuid.NewRandomFromReader(random)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
