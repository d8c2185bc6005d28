package ports

import (
	"context"
	"time"

	"counsel/domain/contract"
)

// DueKeyDate is a live contract whose notice date may be due in a
// key-date digest (docs/decisions.md §16), with its owner and the
// thresholds already announced for it.
type DueKeyDate struct {
	ContractID int64
	Name       string
	Status     contract.Status
	Digital    bool
	EndDate    *time.Time
	NoticeDate time.Time
	AutoRenew  bool
	OwnerID    int64
	OwnerEmail string
	OwnerName  string
	// Announced are the thresholds (days) already announced.
	Announced []int
}

// KeyDateAnnouncement is what a digest records of one contract: the
// thresholds it announces (Record), among them the one it lists.
type KeyDateAnnouncement struct {
	Due    DueKeyDate
	Listed int
	Record []int
}

// KeyDateStore keeps which key-date thresholds were announced.
type KeyDateStore interface {
	// DueKeyDates returns the contracts of active owners, live by
	// status (contract.LiveStatuses), whose notice date lies in [from, to)
	// and that have not announced the threshold each would list on the
	// day from with thresholds (ascending): the tightest one whose day
	// (the notice day minus that many days) is from or earlier. Ordered
	// by owner, notice date and id. Read by index whatever the number of
	// contracts: one query for the candidates, and one per few hundred of
	// them for what they announced.
	DueKeyDates(ctx context.Context, from, to time.Time, thresholds []int) ([]DueKeyDate, error)
	// AnnounceKeyDates records, in one write transaction, the thresholds
	// of each announcement (of one owner) whose contract still has the
	// owner, notice date and live state it was read with, and calls
	// digest in that transaction with the announcements whose listed
	// threshold this transaction recorded first; digest adds the digest
	// mail to the transaction's effects (or returns an error, which
	// rolls all of it back). digest is not called when no announcement
	// was won. It returns how many contracts the committed digest listed
	// (0: none was won). Concurrent calls for the same contracts (other
	// instances) record and list each threshold once, in one digest.
	AnnounceKeyDates(ctx context.Context, as []KeyDateAnnouncement, digest func(won []KeyDateAnnouncement) error) (int, error)
}

// RearmKeyDates forgets, in the transaction of a change of a contract's
// notice date, the thresholds announced for it of fewer than Below days
// (contract.KeyDatesRearmBelow): those not yet reached with the new
// date, which will be announced again.
type RearmKeyDates struct {
	ContractID int64
	Below      int
}

func (RearmKeyDates) effect() {}
