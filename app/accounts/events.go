package accounts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// deviceEffects are what a successful sign-in of user userID (email) by
// method causes about its device: the device is recorded, and when the
// user has signed in before but not from this user-agent family or this
// network within account.NewDeviceWindow, the user is emailed "New
// sign-in to Counsel" (in the sign-in's transaction, through the outbox).
// The devices are read before the sign-in's transaction; the returned
// function gives the effects once the method is known.
func (s *Service) deviceEffects(ctx context.Context, userID int64, email string, now time.Time) (func(method string) []ports.Effect, error) {
	req := ports.RequestOf(ctx)
	d := account.DeviceOf(req.UserAgent, req.IP)
	agent, network, known, err := s.d.Store.KnownDevice(ctx, userID, d, now.Add(-account.NewDeviceWindow))
	if err != nil {
		return nil, err
	}
	return func(method string) []ports.Effect {
		out := []ports.Effect{ports.DeviceSeen{UserID: userID, Device: d, At: now}}
		if !known || (agent && network) {
			return out
		}
		return append(out, s.newSignInMail(email, method, req.IP, d, now))
	}, nil
}

// newSignInMail is the "New sign-in to Counsel" email.
func (s *Service) newSignInMail(email, method, ip string, d account.Device, now time.Time) ports.Mail {
	browser := d.Agent
	if browser == "" {
		browser = "an unknown browser"
	}
	if ip == "" {
		ip = "an unknown address"
	}
	text := fmt.Sprintf(`Someone signed in to your Counsel account from a device or network not used in the last 90 days.

Time:    %s
Method:  %s
Address: %s
Browser: %s

If this was you, there is nothing to do. If it was not, change your password now and sign out the sessions you do not recognise on My account`,
		now.UTC().Format("2006-01-02 15:04 UTC"), methodText(method), ip, account.CutUserAgent(browser))
	if s.cfg.PublicURL != "" {
		text += ": " + strings.TrimRight(s.cfg.PublicURL, "/") + "/console/account"
	}
	text += ".\n"
	return ports.Mail{To: email, Subject: "New sign-in to Counsel", Kind: "newSignIn", Text: text}
}

// methodText is a sign-in method in words.
func methodText(m string) string {
	switch m {
	case account.MethodPassword:
		return "password and emailed code"
	case account.MethodAuthenticator:
		return "password and authenticator app"
	case account.MethodRecoveryCode:
		return "password and recovery code"
	case account.MethodIdP:
		return "identity provider"
	case account.MethodPasskey:
		return "passkey"
	}
	return m
}

// signInDevice adds to fx what a sign-in of userID by method records of
// its device: that it was seen and, for a device new to the user, the
// "New sign-in to Counsel" email (every sign-in method).
func (s *Service) signInDevice(ctx context.Context, fx *ports.Effects, userID int64, method string, now time.Time) error {
	creds, err := s.credentials(ctx, userID)
	if err != nil {
		return err
	}
	devices, err := s.deviceEffects(ctx, userID, creds.Email, now)
	if err != nil {
		return err
	}
	fx.Add(devices(method)...)
	return nil
}
