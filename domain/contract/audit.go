package contract

import "time"

// Action is what an audit entry records.
type Action string

// Audit actions (docs/decisions.md §5). Their text is part of the API.
const (
	ActionCreated             Action = "created"
	ActionUpdated             Action = "updated"
	ActionStatusChanged       Action = "statusChanged"
	ActionDocumentAdded       Action = "documentAdded"
	ActionDocumentRemoved     Action = "documentRemoved"
	ActionSubmittedForSigning Action = "submittedForSigning"
	ActionSigningEvent        Action = "signingEvent"
	ActionDeleted             Action = "deleted"
	// ActionSigningCompleted records the signed evidence of a completed
	// signing (docs/decisions.md §13), with the combined PDF's SHA-256.
	ActionSigningCompleted Action = "signingCompleted"
	// ActionSigningReminderSent records a reminder emailed to a signer of
	// the embedded signer (docs/decisions.md §16); the details name the
	// signer.
	ActionSigningReminderSent Action = "signingReminderSent"
)

// AllActions lists every audit action, for the API reference.
func AllActions() []Action {
	return []Action{ActionCreated, ActionUpdated, ActionStatusChanged, ActionDocumentAdded, ActionDocumentRemoved,
		ActionSubmittedForSigning, ActionSigningEvent, ActionDeleted, ActionSigningCompleted, ActionSigningReminderSent}
}

// AuditEntry is one line of a contract's history. Entries outlive the
// contract: deleting a Draft keeps its trail.
type AuditEntry struct {
	ID         int64
	ContractID int64
	Action     Action
	// From and To are the statuses of a status change; 0 when the entry
	// is not one (To alone for created, From alone for deleted).
	From, To Status
	Actor    Actor
	// ActorUserID is the user who acted when Actor is ActorUser, else 0.
	ActorUserID int64
	// ActorName is filled in by the store: the user's name at the time,
	// or Actor.String() ("system", "signing provider").
	ActorName string
	At        time.Time
	// Details is a short human-readable note ("changed contractName,
	// amount"; a document's file name; a decline reason).
	Details string
}

// Audit returns the audit entry of a status change made by actor (userID
// for ActorUser) at at: a statusChanged entry, or nothing when the change
// did nothing. Signing flows pass their own action (signingEvent).
func (ch StatusChange) Audit(action Action, userID int64, at time.Time, details string) []AuditEntry {
	if !ch.Changed {
		return nil
	}
	return []AuditEntry{{Action: action, From: ch.From, To: ch.To, Actor: ch.Actor, ActorUserID: userIDOf(ch.Actor, userID), At: at, Details: details}}
}

// userIDOf keeps a user id only for entries a user made.
func userIDOf(a Actor, id int64) int64 {
	if a != ActorUser {
		return 0
	}
	return id
}
