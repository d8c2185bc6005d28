package porttest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

// SigningRemindersSuite holds the signing store's side of reminders
// (docs/decisions.md §16): a submitter's reminder count and time are
// saved and read back, RemindableSubmissions selects the pending
// submissions with a signer invited (or last reminded) at or before the
// time given and under the maximum, and a SigningHistory effect lands in
// the history of the contract that has the submission, in the
// transaction of the change.
func SigningRemindersSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	uid := bootstrap(t, s)
	tpl, err := s.Signing.CreateTemplate(ctx, ports.SigningTemplateRecord{Name: "Reminders", Slug: "tpl-reminders",
		ExternalID: "x", Roles: []string{"A", "B"}, CreatedAt: T0, UpdatedAt: T0})
	is.NoErr(err)
	sent := T0
	newSub := func(slug string, status string) ports.SigningSubmissionRecord {
		t.Helper()
		rec, err := s.Signing.CreateSubmission(ctx, ports.SigningSubmissionRecord{TemplateID: tpl.ID, Name: "R", Order: signing.OrderRandom,
			Status: status, SendEmail: true, CreatedAt: T0, UpdatedAt: T0, Submitters: []ports.SigningSubmitterRecord{
				{Slug: slug + "-a", Email: "a@example.com", Role: "A", Status: signing.SubmitterSent, SentAt: &sent},
				{Slug: slug + "-b", Email: "b@example.com", Role: "B", Status: signing.SubmitterAwaiting},
			}})
		is.NoErr(err)
		return rec
	}
	remindable := func(before time.Time, max int) []int64 {
		t.Helper()
		ids, err := s.Signing.RemindableSubmissions(ctx, before, max, 0, 100)
		is.NoErr(err)
		return ids
	}
	pending := newSub("p", signing.SubmissionPending)
	newSub("c", signing.SubmissionCompleted)

	is.Equal(len(remindable(T0.Add(-time.Millisecond), 3)), 0) // invited after the time given
	is.Equal(remindable(T0, 3), []int64{pending.ID})           // invited at it: due; the completed one never
	is.Equal(len(remindable(T0.Add(time.Hour), 0)), 0)         // max 0

	// A reminder is counted and timed in UpdateSubmission, with its
	// history entry written by the same transaction.
	c, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "0b3e6f1a-9c2d-4e5f-8a7b-6c5d4e3f2a10", Name: "Reminded",
		Type: contract.Other, Status: contract.WaitingForClientSignature, DigitalContractID: strconv.FormatInt(tpl.ID, 10),
		DigitalContractSubmissionID: strconv.FormatInt(pending.ID, 10), CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)
	reminded := T0.Add(2 * time.Hour)
	fxCtx, fx := ports.WithEffects(ctx)
	got, err := s.Signing.UpdateSubmission(fxCtx, pending.ID, func(r *ports.SigningSubmissionRecord) error {
		r.Submitters[0].Reminders, r.Submitters[0].RemindedAt = 1, &reminded
		fx.Add(ports.SigningHistory{SubmissionID: strconv.FormatInt(r.ID, 10), Entry: contract.AuditEntry{
			Action: contract.ActionSigningReminderSent, Actor: contract.ActorSigningProvider, At: reminded, Details: "reminder 1 emailed to a@example.com"}})
		return nil
	})
	is.NoErr(err)
	is.Equal(got.Submitters[0].Reminders, 1)              // saved
	is.True(got.Submitters[0].RemindedAt.Equal(reminded)) // with its time
	is.Equal(got.Submitters[1].Reminders, 0)              // the other untouched
	is.True(got.Submitters[1].RemindedAt == nil)
	h, _, err := s.Contracts.History(ctx, c.ID, 10, 0)
	is.NoErr(err)
	is.Equal(h[0].Action, contract.ActionSigningReminderSent) // the entry, newest
	is.Equal(h[0].Details, "reminder 1 emailed to a@example.com")
	is.Equal(h[0].ActorName, "signing provider")

	is.Equal(len(remindable(T0.Add(time.Hour), 3)), 0)       // the last reminder is later than the time given
	is.Equal(remindable(reminded, 3), []int64{pending.ID})   // due again from the last reminder
	is.Equal(len(remindable(reminded.Add(time.Hour), 1)), 0) // max reached

	// A history entry for a submission no contract has writes nothing and
	// fails nothing.
	fxCtx, fx = ports.WithEffects(ctx)
	other := newSub("o", signing.SubmissionPending)
	_, err = s.Signing.UpdateSubmission(fxCtx, other.ID, func(r *ports.SigningSubmissionRecord) error {
		fx.Add(ports.SigningHistory{SubmissionID: strconv.FormatInt(r.ID, 10), Entry: contract.AuditEntry{
			Action: contract.ActionSigningReminderSent, Actor: contract.ActorSigningProvider, At: reminded}})
		return nil
	})
	is.NoErr(err)
}
