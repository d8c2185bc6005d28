// Package audit is the security and administration event log
// (docs/decisions.md §18): who did what to which account, role, office or
// the database, written in the transaction of the change (as a
// ports.AuditEvent effect). An event never holds a secret, password,
// code, token or pay figure: Details names what changed, not the values.
package audit

import (
	"context"
	"strings"
	"time"

	"counsel/domain"
)

// Actions. Their text is part of the API (the Action filter).
const (
	SignIn             = "signin.succeeded"
	SignInFailed       = "signin.failed"
	AccountLocked      = "account.locked"
	SignOut            = "signout"
	SessionRevoked     = "session.revoked"
	RefreshTokenReused = "refresh_token.reused"
	PasswordChanged    = "password.changed"
	TOTPEnabled        = "totp.enabled"
	TOTPDisabled       = "totp.disabled"
	TOTPReset          = "totp.reset"
	PasskeyAdded       = "passkey.added"
	PasskeyRemoved     = "passkey.removed"
	// PasskeyCounterRegressed: a passkey's signature counter went
	// backwards, a sign of a cloned authenticator; the sign-in is refused.
	PasskeyCounterRegressed = "passkey.counter_regressed"
	UserCreated             = "user.created"
	UserUpdated             = "user.updated"
	UserDeactivated         = "user.deactivated"
	UserDeleted             = "user.deleted"
	RoleCreated             = "role.created"
	RoleUpdated             = "role.updated"
	RoleDeleted             = "role.deleted"
	RolePermissionsChanged  = "role.permissions_changed"
	RoleAssigned            = "role.assigned"
	RoleRemoved             = "role.removed"
	OfficeCreated           = "office.created"
	OfficeUpdated           = "office.updated"
	RemunerationCreated     = "remuneration.created"
	PQEAdjustmentCreated    = "pqe_adjustment.created"
	APIKeyCreated           = "api_key.created"
	APIKeyRevoked           = "api_key.revoked"
	WebhookCreated          = "webhook.created"
	WebhookUpdated          = "webhook.updated"
	WebhookDeleted          = "webhook.deleted"
	WebhookSecretRotated    = "webhook.secret_rotated"
	BackupWritten           = "backup.written"
	DatabaseRestored        = "database.restored"
)

// Actions lists every action, for the API reference and the Action
// filter's check.
func Actions() []string {
	return []string{SignIn, SignInFailed, AccountLocked, SignOut, SessionRevoked, RefreshTokenReused, PasswordChanged,
		TOTPEnabled, TOTPDisabled, TOTPReset, PasskeyAdded, PasskeyRemoved, PasskeyCounterRegressed, UserCreated, UserUpdated, UserDeactivated,
		UserDeleted, RoleCreated, RoleUpdated, RoleDeleted, RolePermissionsChanged, RoleAssigned, RoleRemoved,
		OfficeCreated, OfficeUpdated, RemunerationCreated, PQEAdjustmentCreated, APIKeyCreated, APIKeyRevoked,
		WebhookCreated, WebhookUpdated, WebhookDeleted, WebhookSecretRotated, BackupWritten, DatabaseRestored}
}

// Actor kinds.
const (
	ActorUser     = "user"
	ActorAPIKey   = "apiKey"
	ActorCLI      = "cli"
	ActorSystem   = "system"
	ActorProvider = "provider"
)

// Target types.
const (
	TargetUser     = "user"
	TargetRole     = "role"
	TargetOffice   = "office"
	TargetSession  = "session"
	TargetDatabase = "database"
	TargetAPIKey   = "apiKey"
	TargetWebhook  = "webhook"
)

// Sign-in failure reasons (Details "reason"): categories, never what was
// typed.
const (
	ReasonBadCredentials = "badCredentials"  // a wrong password or second factor
	ReasonLocked         = "locked"          // the account is locked
	ReasonInactive       = "inactive"        // the user is deactivated
	ReasonUnknownAccount = "unknownAccount"  // no user has the email
	ReasonIdentity       = "identityRefused" // the identity provider's token or link was refused
)

// Event is one security or administration event.
type Event struct {
	ID     int64
	At     time.Time // zero: the time of the transaction that writes it
	Action string
	Actor
	TargetType string
	TargetID   string
	IP         string
	UserAgent  string
	RequestID  string
	// Details are names and categories (changed field names, a sign-in
	// method, a failure reason, a count), never values of secrets or pay.
	Details map[string]any
}

// Actor is who made a change: a user (or an API key acting for one),
// the command line, the system (a background job) or the identity
// provider (provisioning). Name is filled in by the store from the user
// when empty.
type Actor struct {
	Kind   string
	UserID int64 // 0 when no user acted
	Name   string
}

type actorKey struct{}

// WithActor makes actor the actor of the changes made with ctx when no
// signed-in user makes them (the command line, background jobs).
func WithActor(ctx context.Context, actor Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorOf returns the actor WithActor set, if any.
func ActorOf(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// MaxLimit is the largest page of events.
const MaxLimit = 100

// Filter selects events: every set field must match.
type Filter struct {
	Actions     []string
	ActorUserID *int64
	TargetType  string
	TargetID    string
	From, To    *time.Time // at >= From, at <= To
	Limit       int
	Offset      int
}

// Validate checks a filter's fields.
func (f Filter) Validate() error {
	fe := domain.FieldErrors{}
	known := map[string]bool{}
	for _, a := range Actions() {
		known[a] = true
	}
	for _, a := range f.Actions {
		if !known[a] {
			fe.Add("Action", "unknown action "+quote(a)+"; one of "+strings.Join(Actions(), ", "))
			break
		}
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		fe.Add("To", "To is before From")
	}
	if f.Limit < 0 {
		fe.Add("Limit", "Limit must not be negative")
	}
	if f.Offset < 0 {
		fe.Add("Offset", "Offset must not be negative")
	}
	return fe.Err()
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "") + `"`
}

// DefaultRetention and MinRetention bound COUNSEL_AUDIT_RETENTION.
const (
	DefaultRetention = 8760 * time.Hour
	MinRetention     = 720 * time.Hour
)
