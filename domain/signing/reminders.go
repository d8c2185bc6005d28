package signing

import "time"

// ReminderCooldown is how long after a reminder a signer cannot be sent
// another by hand ("remind now"; docs/decisions.md §16).
const ReminderCooldown = time.Hour

// ReminderSchedule is the automatic reminders of the embedded signer:
// one every Interval after the invitation (or after the last reminder),
// at most Max in all. A zero Interval or Max sends none.
type ReminderSchedule struct {
	Interval time.Duration
	Max      int
}

// ReminderState is what the schedule reads of one signer.
type ReminderState struct {
	// Status is the submitter's status (a Submitter* value) and
	// SubmissionStatus the submission's.
	Status           string
	SubmissionStatus string
	// SentAt is when the invitation was queued; nil when none was.
	SentAt *time.Time
	// Reminders is how many reminders were sent (automatic and by hand)
	// and RemindedAt when the last was.
	Reminders  int
	RemindedAt *time.Time
}

// Pending reports whether the signer still has to act: invited, the
// submission pending, and they have neither signed nor declined.
func (r ReminderState) Pending() bool {
	if r.SubmissionStatus != SubmissionPending || r.SentAt == nil {
		return false
	}
	return r.Status == SubmitterSent || r.Status == SubmitterOpened || r.Status == SubmitterAwaiting
}

// Next returns when the signer's next automatic reminder is due; ok is
// false when none will be (not pending, reminders off, or Max reached).
// The next reminder is Interval after the later of the invitation and
// the last reminder, so a reminder sent by hand restarts the wait.
func (s ReminderSchedule) Next(r ReminderState) (due time.Time, ok bool) {
	if s.Interval <= 0 || s.Max <= 0 || !r.Pending() || r.Reminders >= s.Max {
		return time.Time{}, false
	}
	from := *r.SentAt
	if r.RemindedAt != nil && r.RemindedAt.After(from) {
		from = *r.RemindedAt
	}
	return from.Add(s.Interval), true
}

// Due reports whether an automatic reminder is due at now.
func (s ReminderSchedule) Due(r ReminderState, now time.Time) bool {
	due, ok := s.Next(r)
	return ok && !now.Before(due)
}

// CoolingDown reports whether a reminder by hand must wait, and how long:
// a signer reminded less than ReminderCooldown ago is not reminded again.
func CoolingDown(r ReminderState, now time.Time) (time.Duration, bool) {
	if r.RemindedAt == nil {
		return 0, false
	}
	left := r.RemindedAt.Add(ReminderCooldown).Sub(now)
	return left, left > 0
}
