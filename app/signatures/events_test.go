package signatures

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/domain/signing"
)

var t0 = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

func TestDecide(t *testing.T) {
	completed := func(email string, all bool) signing.Event {
		return signing.Event{Kind: signing.EventSubmitterCompleted, SubmissionID: "7", SubmitterEmail: email, AllCompleted: all}
	}
	for _, tc := range []struct {
		name    string
		from    contract.Status
		event   signing.Event
		to      contract.Status
		entries int
		refused bool
		details string
	}{
		{"a signer's signature is progress", contract.WaitingForClientSignature, completed("Alice@X.example", false), contract.WaitingForClientSignature, 1, false, "Alice@X.example signed (submission 7)"},
		{"the last signature signs", contract.WaitingForClientSignature, completed("bob@x.example", true), contract.Signed, 1, false, "bob@x.example signed; every party has signed (submission 7)"},
		{"the last signature after submission.completed is still told", contract.Signed, completed("bob@x.example", true), contract.Signed, 1, false, "bob@x.example signed; every party has signed (submission 7)"},
		{"submission.completed signs", contract.WaitingForClientSignature, signing.Event{Kind: signing.EventSubmissionCompleted, SubmissionID: "7"}, contract.Signed, 1, false, "every party has signed (submission 7)"},
		{"submission.completed when signed writes nothing", contract.Signed, signing.Event{Kind: signing.EventSubmissionCompleted, SubmissionID: "7"}, contract.Signed, 0, false, ""},
		{"a decline declines with its reason", contract.WaitingForClientSignature, signing.Event{Kind: signing.EventSubmitterDeclined, SubmissionID: "7", SubmitterEmail: "c@x.example", Reason: " too\n  expensive "}, contract.Declined, 1, false, "c@x.example declined (submission 7): too expensive"},
		{"a decline without reason", contract.WaitingForClientSignature, signing.Event{Kind: signing.EventSubmitterDeclined, SubmissionID: "7"}, contract.Declined, 1, false, "a signer declined (submission 7): no reason given"},
		{"expiry expires", contract.WaitingForClientSignature, signing.Event{Kind: signing.EventSubmissionExpired, SubmissionID: "7"}, contract.Expired, 1, false, "the submission expired (submission 7)"},
		{"an outcome for a contract that moved on is kept, not forced", contract.Draft, signing.Event{Kind: signing.EventSubmissionExpired, SubmissionID: "7"}, contract.Draft, 1, true, "the submission expired (submission 7); the contract stays Draft"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			r, ok := interpret(tc.event)
			is.True(ok) // a kind acted on
			c := contract.Contract{Status: tc.from, DigitalContractID: "3", DigitalContractSubmissionID: "7"}
			entries, err := decide(&c, r, t0)
			is.Equal(err != nil, tc.refused) // refused by the state machine or not
			is.Equal(c.Status, tc.to)        // status afterwards
			is.Equal(len(entries), tc.entries)
			if tc.entries > 0 {
				e := entries[0]
				is.Equal(e.Action, contract.ActionSigningEvent)      // signingEvent
				is.Equal(e.Actor, contract.ActorSigningProvider)     // by the provider
				is.Equal(e.Details, tc.details)                      // details
				is.Equal(e.At, t0)                                   // now
				is.Equal(e.To != 0, tc.to != tc.from && !tc.refused) // a status change only when there is one
			}
			is.Equal(c.IsSigned, tc.to == contract.Signed && tc.from != contract.Signed) // isSigned with Signed
		})
	}
}

func TestInterpretKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    signing.Event
		key  string
		ok   bool
	}{
		{"a signature, by lower-case email", signing.Event{Kind: signing.EventSubmitterCompleted, SubmitterEmail: " Alice@X.example "}, "completed:alice@x.example", true},
		{"a decline", signing.Event{Kind: signing.EventSubmitterDeclined, SubmitterEmail: "b@x.example"}, "declined:b@x.example", true},
		{"completion", signing.Event{Kind: signing.EventSubmissionCompleted}, "submission.completed", true},
		{"expiry", signing.Event{Kind: signing.EventSubmissionExpired}, "submission.expired", true},
		{"an unknown kind", signing.Event{Kind: "submission.archived"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			r, ok := interpret(tc.e)
			is.Equal(ok, tc.ok)     // acted on or not
			is.Equal(r.key, tc.key) // the repeat key
		})
	}
}

func TestOutcomeEvents(t *testing.T) {
	done := t0.Add(time.Hour)
	signer := func(email, status string) signing.Submitter {
		s := signing.Submitter{Email: email, Status: status}
		switch status {
		case signing.SubmitterCompleted:
			s.CompletedAt = &done
		case signing.SubmitterDeclined:
			s.DeclinedAt, s.DeclineReason = &done, "no"
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		sub    signing.Submission
		kinds  []string
		emails []string
	}{
		{"pending has none", signing.Submission{ID: "1", Status: signing.SubmissionPending,
			Submitters: []signing.Submitter{signer("a@x", signing.SubmitterCompleted), signer("b@x", signing.SubmitterSent)}}, nil, nil},
		{"completed: each signature, then completion", signing.Submission{ID: "1", Status: signing.SubmissionCompleted, CompletedAt: &done,
			Submitters: []signing.Submitter{signer("a@x", signing.SubmitterCompleted), signer("b@x", signing.SubmitterCompleted)}},
			[]string{signing.EventSubmitterCompleted, signing.EventSubmitterCompleted, signing.EventSubmissionCompleted}, []string{"a@x", "b@x", ""}},
		{"declined: signatures before it, then the decline", signing.Submission{ID: "1", Status: signing.SubmissionDeclined,
			Submitters: []signing.Submitter{signer("a@x", signing.SubmitterCompleted), signer("b@x", signing.SubmitterDeclined)}},
			[]string{signing.EventSubmitterCompleted, signing.EventSubmitterDeclined}, []string{"a@x", "b@x"}},
		{"expired", signing.Submission{ID: "1", Status: signing.SubmissionExpired,
			Submitters: []signing.Submitter{signer("a@x", signing.SubmitterOpened)}},
			[]string{signing.EventSubmissionExpired}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			evs := OutcomeEvents(tc.sub, t0)
			is.Equal(len(evs), len(tc.kinds)) // how many
			for i, e := range evs {
				is.Equal(e.Kind, tc.kinds[i])            // kind
				is.Equal(e.SubmitterEmail, tc.emails[i]) // who
				is.Equal(e.SubmissionID, "1")            // the submission
			}
		})
	}
}
