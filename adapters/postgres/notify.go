package postgres

import (
	"context"

	"counsel/ports"
)

// channel is the LISTEN/NOTIFY channel on which instances tell each other
// what changed.
const channel = "counsel_changes"

// Payloads of notifications on channel.
const (
	// changedProfiles: a user, office, remuneration or PQE adjustment
	// changed; cached profiles are stale. It implies changedPrincipals
	// (a user may have been deactivated or deleted).
	changedProfiles = "profiles"
	// changedPrincipals: a session was revoked or a user's roles or
	// permissions changed; cached principals must be checked again.
	changedPrincipals = "principals"
	// changedMail: mail was queued in the outbox; outbox workers claim it.
	// It invalidates nothing.
	changedMail = "mail"
	// changedWebhooks: webhook deliveries were queued; webhook workers
	// claim them. It invalidates nothing.
	changedWebhooks = "webhooks"
)

// ChangedWebhooks is the payload Listen passes on when webhook
// deliveries may have been queued.
const ChangedWebhooks = changedWebhooks

// queuesWebhooks reports whether effects hold a webhook event.
func queuesWebhooks(effects []ports.Effect) bool {
	for _, e := range effects {
		if _, ok := e.(ports.WebhookEvent); ok {
			return true
		}
	}
	return false
}

// ChangedMail is the payload Listen passes on when mail was queued.
const ChangedMail = changedMail

// queuesMail reports whether effects hold mail.
func queuesMail(effects []ports.Effect) bool {
	for _, e := range effects {
		if _, ok := e.(ports.Mail); ok {
			return true
		}
	}
	return false
}

// notify sends payload on channel with the transaction of x: PostgreSQL
// delivers it at commit, and never for a rollback. A change of principals
// or profiles is also announced in this process after the commit (tx).
func notify(ctx context.Context, x q, payload string) error {
	if _, err := x.exec(ctx, `SELECT pg_notify('`+channel+`', ?)`, payload); err != nil {
		return err
	}
	if x.changed != nil && (payload == changedPrincipals || payload == changedProfiles) {
		*x.changed = true
	}
	return nil
}
