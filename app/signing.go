package app

import (
	"context"
	"counsel/domain/mail"
	"fmt"
	"io"
	"os"

	"counsel/adapters/docuseal"
	"counsel/adapters/embeddedsign"
	httpadapter "counsel/adapters/http"
	"counsel/adapters/metrics"
	"counsel/adapters/pdfevidence"
	"counsel/adapters/totp"
	"counsel/app/signatures"
	"counsel/domain/signing"
	"counsel/ports"
)

// wireSigning builds the signing provider COUNSEL_SIGNING_PROVIDER names
// and the signing use case over it.
//
// embedded: the provider keeps its records in the database, reads
// contract documents through the use case, and reports its events to the
// use case's ApplySigningEvent after its own commits; it serves the
// /sign pages, queues invitations and reminders in the mail outbox, and a
// background loop expires its due submissions every minute (stopped by
// Close). docuseal: the DocuSeal API client, which has no pages.
func (a *App) wireSigning(ctx context.Context, secrets ports.AccountStore, users signatures.UserLookup) error {
	cfg := a.cfg
	pdf, err := a.pdfEvidence(ctx, secrets)
	if err != nil {
		return err
	}
	deps := signatures.Deps{
		Contracts: a.contractStore, Signing: a.contractStore, Blobs: a.blobs, Users: users, Render: httpadapter.WebhookData,
		Clock: cfg.Clock, Logger: a.log, MailLinks: mail.Links{PublicURL: a.issuer()},
		Evidence:    signatures.EvidenceDeps{PDF: pdf, Store: a.contractStore, FirmName: cfg.FirmName},
		AttachLimit: cfg.MailAttachLimit,
	}
	switch cfg.SigningProvider {
	case "docuseal":
		p, err := docuseal.New(docuseal.Config{
			BaseURL: cfg.DocuSealURL, APIKey: cfg.DocuSealAPIKey, WebhookSecret: cfg.DocuSealWebhookSecret,
			WebhookHeader: cfg.DocuSealWebhookHeader, UserEmail: cfg.DocuSealUserEmail, Logger: a.log, Now: cfg.Clock.Now,
		})
		if err != nil {
			return err
		}
		// DocuSeal returns signing links only when a submission is made:
		// they are kept sealed under a key derived from the
		// authenticator vault's.
		key, err := a.db.TOTP.TOTPKey(ctx, func() ([]byte, error) { return randomBytes(cfg.Rand, totp.KeySize) })
		if err != nil {
			return fmt.Errorf("signing links key: %w", err)
		}
		links, err := totp.NewSealer(key, "docuseal signer links", cfg.Rand)
		if err != nil {
			return err
		}
		deps.Provider, deps.Links = p, links
		a.Signing = signatures.New(deps)
		a.log.Info("signing provider: DocuSeal", "url", cfg.DocuSealURL, "webhook", a.issuer()+"/api/signing/webhook")
		return nil
	}

	secret, err := secrets.Secret(ctx, "signing_pages_key", func() ([]byte, error) { return randomBytes(cfg.Rand, 32) })
	if err != nil {
		return fmt.Errorf("signing pages key: %w", err)
	}
	// The provider and the use case refer to each other: the provider
	// reads documents and reports events through the use case, which
	// calls the provider. The use case exists before any request.
	var svc *signatures.Service
	p, err := embeddedsign.New(embeddedsign.Config{
		PublicURL: a.issuer(),
		Store:     a.db.Signing,
		Documents: func(ctx context.Context, id string) (io.ReadCloser, string, string, error) {
			return svc.OpenDocument(ctx, id)
		},
		Events:    func(ctx context.Context, e signing.Event) error { return svc.ApplySigningEvent(ctx, e) },
		Reminders: signing.ReminderSchedule{Interval: cfg.SigningReminderInterval, Max: cfg.SigningReminderMax},
		Secret:    secret,
		// COUNSEL_LINK_TTL: how long a template document's signed link works.
		DocumentLinkTTL: cfg.LinkTTL,
		Now:             cfg.Clock.Now,
		Rand:            cfg.Rand,
		Logger:          a.log,
	})
	if err != nil {
		return err
	}
	deps.Provider, deps.DocumentsByReference, deps.Reminders = p, true, p
	deps.Evidence.Source = p
	svc = signatures.New(deps)
	a.Signing, a.signingPages = svc, p
	if cfg.PublicURL == "" {
		a.log.Warn("COUNSEL_PUBLIC_URL is not set: the embedded signer's links point at " + a.issuer() + ", which signers elsewhere cannot open")
	}
	if a.mailer == nil {
		a.log.Info("signing provider: embedded; no SMTP configured, so its emails are kept in the outbox (the console's Mail page; the links are in embedSrc)")
	}
	if cfg.SigningReminderInterval > 0 && cfg.SigningReminderMax > 0 {
		// Every instance runs the job: each reminder is decided again on
		// the locked submission (FOR UPDATE on PostgreSQL, SQLite's one
		// writer) and counted in the transaction that queues it, so it is
		// sent once however many instances find it due.
		a.every(min(cfg.SigningReminderInterval, sweepInterval), a.counted("signing reminders", a.tracked(metrics.JobReminders, p.RemindDue)))
	}
	a.every(sweepInterval, a.counted("signing submission expiry", a.exclusive("signing-expiry", a.tracked(metrics.JobSigningSweep, p.ExpireDue))))
	// At start and every minute: evidence a crash or a failure left
	// pending (one instance at a time).
	a.every(sweepInterval, a.counted("signed evidence", a.exclusive("signed-evidence", a.tracked(metrics.JobEvidence, svc.ProduceEvidence))))
	return nil
}

// pdfEvidence builds the signed-evidence maker: with the firm's own
// certificate and key (COUNSEL_PDF_CERT, COUNSEL_PDF_KEY), or with a
// self-signed one made on first start and kept with the other server
// secrets.
func (a *App) pdfEvidence(ctx context.Context, secrets ports.AccountStore) (ports.PDFEvidence, error) {
	cfg := a.cfg
	var certPEM, keyPEM []byte
	if cfg.PDFCert != "" {
		var err error
		if certPEM, err = os.ReadFile(cfg.PDFCert); err != nil {
			return nil, fmt.Errorf("COUNSEL_PDF_CERT: %w", err)
		}
		if keyPEM, err = os.ReadFile(cfg.PDFKey); err != nil {
			return nil, fmt.Errorf("COUNSEL_PDF_KEY: %w", err)
		}
	} else {
		identity, err := secrets.Secret(ctx, "pdf_signing_identity", func() ([]byte, error) {
			c, k, err := pdfevidence.NewIdentity(cfg.FirmName, cfg.Clock.Now(), cfg.Rand)
			return append(c, k...), err
		})
		if err != nil {
			return nil, fmt.Errorf("PDF signing identity: %w", err)
		}
		// One PEM holds both blocks; each reader takes its own.
		certPEM, keyPEM = identity, identity
	}
	e, err := pdfevidence.New(certPEM, keyPEM, cfg.Clock.Now)
	if err != nil {
		return nil, err
	}
	if cfg.WrapEvidence != nil {
		return cfg.WrapEvidence(e), nil
	}
	return e, nil
}
