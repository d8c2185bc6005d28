package signing_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/signing"
)

func TestReminderSchedule(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	h := time.Hour
	sched := signing.ReminderSchedule{Interval: 72 * h, Max: 3}
	pending := func(reminders int, remindedAt *time.Time) signing.ReminderState {
		return signing.ReminderState{Status: signing.SubmitterSent, SubmissionStatus: signing.SubmissionPending,
			SentAt: at(0), Reminders: reminders, RemindedAt: remindedAt}
	}
	for _, tc := range []struct {
		name  string
		sched signing.ReminderSchedule
		state signing.ReminderState
		due   time.Time
		ok    bool
	}{
		{"first after the invitation", sched, pending(0, nil), t0.Add(72 * h), true},
		{"next after the last reminder", sched, pending(1, at(72*h)), t0.Add(144 * h), true},
		{"a reminder by hand restarts the wait", sched, pending(1, at(10*h)), t0.Add(82 * h), true},
		{"max reached", sched, pending(3, at(216*h)), time.Time{}, false},
		{"opened still pending", sched, signing.ReminderState{Status: signing.SubmitterOpened,
			SubmissionStatus: signing.SubmissionPending, SentAt: at(0)}, t0.Add(72 * h), true},
		{"signed", sched, signing.ReminderState{Status: signing.SubmitterCompleted,
			SubmissionStatus: signing.SubmissionPending, SentAt: at(0)}, time.Time{}, false},
		{"declined", sched, signing.ReminderState{Status: signing.SubmitterDeclined,
			SubmissionStatus: signing.SubmissionDeclined, SentAt: at(0)}, time.Time{}, false},
		{"submission completed", sched, signing.ReminderState{Status: signing.SubmitterSent,
			SubmissionStatus: signing.SubmissionCompleted, SentAt: at(0)}, time.Time{}, false},
		{"submission expired", sched, signing.ReminderState{Status: signing.SubmitterSent,
			SubmissionStatus: signing.SubmissionExpired, SentAt: at(0)}, time.Time{}, false},
		{"never invited", sched, signing.ReminderState{Status: signing.SubmitterAwaiting,
			SubmissionStatus: signing.SubmissionPending}, time.Time{}, false},
		{"interval 0 is off", signing.ReminderSchedule{Max: 3}, pending(0, nil), time.Time{}, false},
		{"max 0 is off", signing.ReminderSchedule{Interval: h}, pending(0, nil), time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			due, ok := tc.sched.Next(tc.state)
			is.Equal(ok, tc.ok)
			is.True(due.Equal(tc.due))
			if ok {
				is.True(!tc.sched.Due(tc.state, tc.due.Add(-time.Millisecond)))
				is.True(tc.sched.Due(tc.state, tc.due))
			} else {
				is.True(!tc.sched.Due(tc.state, t0.Add(10000*h)))
			}
		})
	}
}

func TestCoolingDown(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		remindedAt *time.Time
		now        time.Time
		left       time.Duration
		cooling    bool
	}{
		{"never reminded", nil, t0, 0, false},
		{"just reminded", &t0, t0, time.Hour, true},
		{"59 minutes ago", &t0, t0.Add(59 * time.Minute), time.Minute, true},
		{"an hour ago", &t0, t0.Add(time.Hour), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			left, cooling := signing.CoolingDown(signing.ReminderState{RemindedAt: tc.remindedAt}, tc.now)
			is.Equal(cooling, tc.cooling)
			if cooling {
				is.Equal(left, tc.left)
			}
		})
	}
}
