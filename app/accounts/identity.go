package accounts

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/webhook"
	"counsel/ports"
)

// IdentityPolicy says which unknown people an identity-provider sign-in may
// create an account for.
type IdentityPolicy struct {
	// AutoProvision creates a user, with the default roles, for a verified
	// identity whose email matches no user (COUNSEL_OIDC_AUTO_PROVISION).
	AutoProvision bool
	// AllowedDomains are the email domains that may be provisioned
	// (COUNSEL_OIDC_ALLOWED_DOMAINS). Empty allows none, so turning on
	// auto-provisioning alone cannot open the door to every account at a
	// public provider.
	AllowedDomains []string
}

// Identities resolves verified external identities to users: by their
// link, else by verified email (then linked), else by provisioning a new
// user when the policy allows. It implements IdentityLinker.
type Identities struct {
	store   ports.IdentityStore
	policy  IdentityPolicy
	domains map[string]bool
	clock   ports.Clock
	log     *slog.Logger
}

var _ IdentityLinker = (*Identities)(nil)

// identityRefused is the message of every refused identity-provider
// sign-in. It is the identity provider adapter's message for a bad token,
// word for word, so that a caller cannot tell an unknown, inactive or
// deleted account from a forged token.
const identityRefused = "the identity token is not valid"

// maxNameRunes bounds the names taken from a token; the users module
// allows no longer ones.
const maxNameRunes = 100

// NewIdentities returns the linker over store. log receives the reason of
// every refusal (never a token: it sees only verified claims); nil
// discards.
func NewIdentities(store ports.IdentityStore, policy IdentityPolicy, clock ports.Clock, log *slog.Logger) *Identities {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	domains := map[string]bool{}
	for _, d := range policy.AllowedDomains {
		if d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@")); d != "" {
			domains[d] = true
		}
	}
	return &Identities{store: store, policy: policy, domains: domains, clock: clock, log: log}
}

// refusal is why an identity may not sign in, for the log.
type refusal struct{ reason string }

func (r refusal) Error() string { return r.reason }

func refuse(reason string) error { return refusal{reason} }

// ResolveIdentity implements IdentityLinker. Every refusal is the same
// EUNAUTHORIZED error; its reason goes to the log with the identity.
func (l *Identities) ResolveIdentity(ctx context.Context, id account.ExternalIdentity) (int64, error) {
	userID, err := l.resolve(ctx, id)
	if domain.ErrorCode(err) == domain.ECONFLICT {
		// A concurrent first sign-in of the same person linked the
		// identity or created the user first: look again, once.
		userID, err = l.resolve(ctx, id)
	}
	var r refusal
	switch {
	case err == nil:
		return userID, nil
	case errors.As(err, &r):
	case domain.ErrorCode(err) == domain.ECONFLICT:
		// Still conflicting: the user is linked to another subject of
		// this issuer, so the email has moved to another account there.
		r = refusal{"the user with this email is linked to another subject of the issuer: " + err.Error()}
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		r = refusal{"the user was deleted during sign-in"}
	default:
		return 0, err
	}
	l.log.InfoContext(ctx, "identity provider sign-in refused",
		"issuer", id.Issuer, "subject", id.Subject, "email", id.Email, "reason", r.reason)
	return 0, &domain.Error{Code: domain.EUNAUTHORIZED, Message: identityRefused, Err: r}
}

func (l *Identities) resolve(ctx context.Context, id account.ExternalIdentity) (int64, error) {
	if id.Issuer == "" || id.Subject == "" {
		return 0, refuse("the identity has no issuer or subject")
	}
	// The link decides, whatever the email says now. An identity linked
	// to a deleted user is never provisioned again; it may only move to
	// an undeleted user with its verified email, an account an
	// administrator made for the person anew.
	u, err := l.store.LinkedUser(ctx, id.Issuer, id.Subject)
	linkedToDeleted := false
	switch {
	case err == nil && !u.Deleted:
		return admit(u)
	case err == nil:
		linkedToDeleted = true
	case domain.ErrorCode(err) != domain.ENOTFOUND:
		return 0, err
	}

	email := account.NormalizeEmail(id.Email)
	switch {
	case linkedToDeleted && (!account.ValidEmail(email) || !id.EmailVerified):
		return 0, refuse("the linked user is deleted")
	case !account.ValidEmail(email):
		return 0, refuse("the identity has no usable email")
	case !id.EmailVerified:
		return 0, refuse("the identity's email is not verified")
	}
	now := l.clock.Now()
	u, err = l.store.UserByEmail(ctx, email)
	if err == nil {
		if _, err := admit(u); err != nil {
			return 0, err // refused before anything is linked
		}
		if err := l.store.LinkIdentity(ctx, u.UserID, id.Issuer, id.Subject, email, now, account.CheckRelink); err != nil {
			return 0, err
		}
		l.log.InfoContext(ctx, "identity linked to user by email", "user", u.UserID, "issuer", id.Issuer, "subject", id.Subject, "email", email)
		return u.UserID, nil
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return 0, err
	}

	if linkedToDeleted {
		return 0, refuse("the linked user is deleted and no other user has the email")
	}
	if !l.policy.AutoProvision {
		return 0, refuse("no user has the email and auto-provisioning is off")
	}
	if d := emailDomain(email); !l.domains[d] {
		return 0, refuse("no user has the email and its domain " + d + " is not allowed to be provisioned")
	}
	first, last := names(id, email)
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) { return ports.UserEvent(webhook.UserCreated, id), nil }))
	userID, err := l.store.ProvisionUser(ctx, account.NewUser{Email: email, FirstName: first, LastName: last}, id.Issuer, id.Subject, now)
	if err != nil {
		return 0, err
	}
	l.log.InfoContext(ctx, "user provisioned from identity provider", "user", userID, "issuer", id.Issuer, "subject", id.Subject, "email", email)
	return userID, nil
}

// admit lets active, undeleted users in.
func admit(u ports.IdentityUser) (int64, error) {
	switch {
	case u.Deleted:
		return 0, refuse("the user is deleted")
	case !u.Active:
		return 0, refuse("the user is inactive")
	}
	return u.UserID, nil
}

// emailDomain is the lower-case part after the @ of a normalised email.
func emailDomain(email string) string {
	return email[strings.LastIndexByte(email, '@')+1:]
}

// names picks a new user's first and last name from the identity: the
// given and family names, else the full name split at its first space,
// else the email's local part as the first name, which is required.
func names(id account.ExternalIdentity, email string) (first, last string) {
	first, last = clean(id.GivenName), clean(id.FamilyName)
	if first == "" && last == "" {
		if f := strings.Fields(id.Name); len(f) > 0 {
			first, last = clean(f[0]), clean(strings.Join(f[1:], " "))
		}
	}
	if first == "" {
		first = clean(email[:strings.LastIndexByte(email, '@')])
	}
	return first, last
}

// clean collapses white space and bounds the length of a name.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxNameRunes {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:maxNameRunes]))
}
