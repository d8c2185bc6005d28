package porttest

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/ports"
)

// WebhooksSuite holds the webhook store to its claim: an event is fanned
// out to the active subscriptions of its type with the change that
// caused it; one claim holds a delivery at a time; an outcome is
// recorded only under the claim that made the attempt, so an attempt
// whose lease lapsed and was taken over records nothing.
func WebhooksSuite(t *testing.T, s Stores) {
	is := is.New(t)
	ctx := context.Background()
	uid := bootstrap(t, s)
	sub := func(events ...string) ports.WebhookSubscription {
		w, err := s.Webhooks.CreateWebhook(ctx, ports.WebhookSubscription{URL: "https://hooks.example.com/", Events: events,
			Secret: []byte("sealed"), Active: true, CreatedBy: uid})
		is.NoErr(err)
		return w
	}
	created := sub("contract.created", "contract.deleted")
	sub("user.created")
	off := sub("contract.created")
	_, err := s.Webhooks.UpdateWebhook(ctx, off.ID, func(w *ports.WebhookSubscription) error { w.Active = false; return nil })
	is.NoErr(err)

	fctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.WebhookEvent{Type: "contract.created", Resource: ports.WebhookContract, ResourceID: id}, nil
	}))
	_, err = s.Contracts.CreateContract(fctx, contract.Contract{UUID: "7f0c1b2a-3d4e-4f50-8a61-7b8c9d0e1f21", Name: "Hooked",
		Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, nil)
	is.NoErr(err)
	t0 := time.Now().UTC().Truncate(time.Millisecond).Add(time.Second) // past the store's own now (T0 or the time)
	n, err := s.Webhooks.PendingDeliveries(ctx)
	is.NoErr(err)
	is.Equal(n, 1) // the one active subscription of the type

	ds, err := s.Webhooks.ClaimDeliveries(ctx, t0, time.Minute, 10)
	is.NoErr(err)
	is.Equal(len(ds), 1)
	d := ds[0]
	is.Equal(d.Subscription.ID, created.ID)
	is.Equal(d.Event.Type, "contract.created")
	is.True(d.Token != "")
	again, err := s.Webhooks.ClaimDeliveries(ctx, t0.Add(30*time.Second), time.Minute, 10)
	is.NoErr(err)
	is.Equal(len(again), 0) // held

	// The lease lapses: another worker claims it; the first one's
	// outcome is not recorded, the second one's is, once.
	taken, err := s.Webhooks.ClaimDeliveries(ctx, t0.Add(2*time.Minute), time.Minute, 10)
	is.NoErr(err)
	is.Equal(len(taken), 1)
	is.True(taken[0].Token != d.Token)
	ok := ports.DeliveryOutcome{Status: ports.DeliverySucceeded, ResponseStatus: 204, At: t0.Add(2 * time.Minute), Next: t0.Add(2 * time.Minute)}
	held, err := s.Webhooks.FinishDelivery(ctx, d, ok)
	is.NoErr(err)
	is.True(!held) // the lapsed claim records nothing
	held, err = s.Webhooks.FinishDelivery(ctx, taken[0], ok)
	is.NoErr(err)
	is.True(held)
	held, err = s.Webhooks.FinishDelivery(ctx, taken[0], ok)
	is.NoErr(err)
	is.True(!held) // nor twice
	rows, count, err := s.Webhooks.Deliveries(ctx, created.ID, 10, 0)
	is.NoErr(err)
	is.Equal(count, int64(1)) // one attempt
	is.Equal(rows[0].Attempt, 1)
	is.Equal(rows[0].Status, ports.DeliverySucceeded)

	// A retry by hand makes it due again, as attempt 2.
	is.NoErr(s.Webhooks.RetryDelivery(ctx, created.ID, d.ID, t0.Add(3*time.Minute)))
	ds, err = s.Webhooks.ClaimDeliveries(ctx, t0.Add(3*time.Minute), time.Minute, 10)
	is.NoErr(err)
	is.Equal(len(ds), 1)
	is.Equal(ds[0].Attempts, 1)
	held, err = s.Webhooks.FinishDelivery(ctx, ds[0], ports.DeliveryOutcome{Status: ports.DeliveryPending, ResponseStatus: 500,
		Error: "500", At: t0.Add(3 * time.Minute), Next: t0.Add(4 * time.Minute)})
	is.NoErr(err)
	is.True(held)
	rows, count, err = s.Webhooks.Deliveries(ctx, created.ID, 10, 0)
	is.NoErr(err)
	is.Equal(count, int64(2))
	is.Equal(rows[0].Attempt, 2) // newest first
	is.Equal(rows[0].Status, ports.DeliveryPending)
	is.True(rows[0].NextAttemptAt != nil && rows[0].NextAttemptAt.Equal(t0.Add(4*time.Minute)))
	w, err := s.Webhooks.Webhook(ctx, created.ID)
	is.NoErr(err)
	is.True(w.FailingSince != nil) // failing since that attempt

	// Old events go once no delivery of theirs is pending.
	n64, err := s.Webhooks.PruneWebhookEvents(ctx, t0.Add(time.Hour))
	is.NoErr(err)
	is.Equal(n64, int64(0)) // still pending
	ds, err = s.Webhooks.ClaimDeliveries(ctx, t0.Add(4*time.Minute), time.Minute, 10)
	is.NoErr(err)
	is.Equal(len(ds), 1)
	held, err = s.Webhooks.FinishDelivery(ctx, ds[0], ports.DeliveryOutcome{Status: ports.DeliverySucceeded, ResponseStatus: 200,
		At: t0.Add(4 * time.Minute), Next: t0.Add(4 * time.Minute)})
	is.NoErr(err)
	is.True(held)
	w, err = s.Webhooks.Webhook(ctx, created.ID)
	is.NoErr(err)
	is.True(w.FailingSince == nil) // a success ends the failures
	n64, err = s.Webhooks.PruneWebhookEvents(ctx, T0.Add(-time.Hour))
	is.NoErr(err)
	is.Equal(n64, int64(0)) // not old enough
	n64, err = s.Webhooks.PruneWebhookEvents(ctx, t0.Add(time.Hour))
	is.NoErr(err)
	is.Equal(n64, int64(1))
	_, count, err = s.Webhooks.Deliveries(ctx, created.ID, 10, 0)
	is.NoErr(err)
	is.Equal(count, int64(0)) // with its deliveries and attempts
}
