package accounts

import (
	"context"
	"strconv"

	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// EffectRecorder writes the effects of a context in a transaction of
// their own (ports.AuditStore.RecordEffects): for events of a sign-in
// refused before any account was read or written.
type EffectRecorder interface {
	RecordEffects(ctx context.Context) error
}

func userTarget(id int64) string { return strconv.FormatInt(id, 10) }

// signInEvent is a sign-in's event on user userID: its actor is that
// user on success, an unidentified client otherwise.
func signInEvent(ctx context.Context, action string, userID int64, details map[string]any) ports.AuditEvent {
	e := ports.Audit(ctx, action, audit.TargetUser, "", details)
	if userID != 0 {
		e.TargetID = userTarget(userID)
	}
	if action == audit.SignIn {
		e.Actor = audit.Actor{Kind: audit.ActorUser, UserID: userID}
	} else if _, signedIn := account.FromContext(ctx); !signedIn {
		e.Actor = audit.Actor{Kind: audit.ActorUser, Name: "unidentified client"}
	}
	return e
}

// failReason is the category of a failed sign-in in st, locked telling
// whether the account was locked before it.
func failReason(st *account.LoginState, locked bool) string {
	switch {
	case locked:
		return audit.ReasonLocked
	case !st.Credentials.Active:
		return audit.ReasonInactive
	}
	return audit.ReasonBadCredentials
}

// record writes events in a transaction of their own; a failure to write
// is logged (the answer to the client does not change).
func (s *Service) record(ctx context.Context, events ...ports.Effect) {
	if s.d.Events == nil {
		return
	}
	ctx, fx := ports.WithEffects(context.WithoutCancel(ctx))
	fx.Add(events...)
	if err := s.d.Events.RecordEffects(ctx); err != nil {
		s.d.Logger.Error("security event not recorded", "err", err)
	}
}
