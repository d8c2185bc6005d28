package embeddedsign

import (
	"time"

	"counsel/domain/signing"
	"counsel/ports"
)

// The state rules of a submission, as pure functions over the stored
// record. The store runs them inside its transaction (UpdateSubmission),
// so a check and the change it allows see the same state.

// standing is what a submitter may do now.
type standing int

const (
	canAct  standing = iota // may sign or decline
	waiting                 // order preserved and an earlier signer has not signed
	done                    // the submitter or the submission is finished
	due                     // pending, but the expiry time has passed
)

// standingOf tells what submitter i of s may do at now.
func standingOf(s *ports.SigningSubmissionRecord, i int, now time.Time) standing {
	if s.Status != signing.SubmissionPending {
		return done
	}
	if isDue(s, now) {
		return due
	}
	switch s.Submitters[i].Status {
	case signing.SubmitterCompleted, signing.SubmitterDeclined:
		return done
	}
	if s.Order == signing.OrderPreserved {
		for _, p := range s.Submitters[:i] {
			if p.Status != signing.SubmitterCompleted {
				return waiting
			}
		}
	}
	return canAct
}

// isDue reports whether a pending submission's expiry time has passed.
func isDue(s *ports.SigningSubmissionRecord, now time.Time) bool {
	return s.Status == signing.SubmissionPending && s.ExpireAt != nil && !now.Before(*s.ExpireAt)
}

// expire marks a due submission expired and returns its event; nothing
// when it is not due (another request got there first).
func expire(s *ports.SigningSubmissionRecord, now time.Time) []signing.Event {
	if !isDue(s, now) {
		return nil
	}
	s.Status = signing.SubmissionExpired
	s.ExpiredAt = &now
	s.UpdatedAt = now
	return []signing.Event{{Kind: signing.EventSubmissionExpired, SubmissionID: formatID(s.ID),
		TemplateID: formatID(s.TemplateID), At: now}}
}

// markOpened records the first view of a signable page.
func markOpened(s *ports.SigningSubmissionRecord, i int, now time.Time) {
	p := &s.Submitters[i]
	if p.OpenedAt != nil {
		return
	}
	p.OpenedAt = &now
	if p.Status == signing.SubmitterAwaiting || p.Status == signing.SubmitterSent {
		p.Status = signing.SubmitterOpened
	}
	s.UpdatedAt = now
}

// sign records submitter i's signature, completing the submission when it
// was the last, and returns the events to report.
func sign(s *ports.SigningSubmissionRecord, i int, in ports.SignInput, now time.Time) []signing.Event {
	p := &s.Submitters[i]
	p.Status = signing.SubmitterCompleted
	p.CompletedAt = &now
	if p.OpenedAt == nil {
		p.OpenedAt = &now
	}
	p.SignedName = in.Name
	p.SignerAddr = in.ClientAddr
	p.SignerAgent = truncate(in.UserAgent, maxAgentLen)
	s.UpdatedAt = now
	all := true
	for _, q := range s.Submitters {
		if q.Status != signing.SubmitterCompleted {
			all = false
		}
	}
	id, tid := formatID(s.ID), formatID(s.TemplateID)
	events := []signing.Event{{Kind: signing.EventSubmitterCompleted, SubmissionID: id, TemplateID: tid,
		SubmitterEmail: p.Email, AllCompleted: all, At: now}}
	if all {
		s.Status = signing.SubmissionCompleted
		s.CompletedAt = &now
		// Marked in the transaction of the last signature, so a crash
		// before the evidence is made leaves it pending, not forgotten.
		s.EvidencePending = true
		events = append(events, signing.Event{Kind: signing.EventSubmissionCompleted, SubmissionID: id, TemplateID: tid, At: now})
	}
	return events
}

// decline records submitter i's refusal, which declines the submission.
func decline(s *ports.SigningSubmissionRecord, i int, in ports.DeclineInput, now time.Time) []signing.Event {
	p := &s.Submitters[i]
	p.Status = signing.SubmitterDeclined
	p.DeclinedAt = &now
	p.DeclineReason = in.Reason
	if p.OpenedAt == nil {
		p.OpenedAt = &now
	}
	p.SignerAddr = in.ClientAddr
	p.SignerAgent = truncate(in.UserAgent, maxAgentLen)
	s.Status = signing.SubmissionDeclined
	s.DeclinedAt = &now
	s.UpdatedAt = now
	return []signing.Event{{Kind: signing.EventSubmitterDeclined, SubmissionID: formatID(s.ID),
		TemplateID: formatID(s.TemplateID), SubmitterEmail: p.Email, Reason: in.Reason, At: now}}
}

// nextToInvite returns the submitters to email now: in preserved order the
// first who has not signed, if not yet invited; in random order everyone
// not yet invited. Only pending submissions invite.
func nextToInvite(s *ports.SigningSubmissionRecord) []int {
	if s.Status != signing.SubmissionPending {
		return nil
	}
	var out []int
	for i, p := range s.Submitters {
		if p.Status == signing.SubmitterCompleted {
			continue
		}
		if p.Status == signing.SubmitterAwaiting && p.SentAt == nil {
			out = append(out, i)
		}
		if s.Order == signing.OrderPreserved {
			break
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut at a rune boundary.
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
