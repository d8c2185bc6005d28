package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/ports"
)

// EffectsSuite holds every engine's write transaction to ports.Effects:
// the effects of a change are written with it, or not at all.
func EffectsSuite(t *testing.T, s Stores) {
	is := is.New(t)
	uid := bootstrap(t, s)
	rows := func(table string) int64 {
		t.Helper()
		n, err := s.Rows(context.Background(), table)
		if err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		return n
	}
	mail := func(subject string) ports.Mail {
		return ports.Mail{To: "ann@example.com", Subject: subject, Kind: "test", Text: "Hello"}
	}

	// A create writes its effects, a Deferred one with the new row's id.
	ctx, fx := ports.WithEffects(context.Background())
	var deferredID int64
	fx.Add(ports.Mail{To: "ann@example.com", Subject: "with a file", Kind: "test", Text: "See attached", HTML: "<p>See attached</p>",
		Attachments: []ports.Attachment{{Name: "a.pdf", ContentType: "application/pdf", Data: []byte("%PDF")}, {Name: "b.txt", ContentType: "text/plain", Data: []byte("b")}}})
	fx.Add(ports.Deferred(func(created int64) (ports.Effect, error) {
		deferredID = created
		return mail("created"), nil
	}))
	c, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "6f0c1b2a-3d4e-4f50-8a61-7b8c9d0e1f20", Name: "Effects",
		Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)                                // create with effects
	is.Equal(deferredID, c.ID)                   // the Deferred effect saw the new contract's id
	is.Equal(rows("mail_outbox"), int64(2))      // both messages queued with the contract
	is.Equal(rows("mail_attachments"), int64(2)) // with their attachments
	pending, err := fx.Pending()
	is.NoErr(err)
	is.Equal(len(pending), 0) // nothing left pending once committed

	// A change its callback refuses writes none of the effects the callback
	// added, and keeps those added before it for the next change.
	boom := errors.New("refused")
	ctx, fx = ports.WithEffects(context.Background())
	fx.Add(mail("before"))
	_, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		fx.Add(mail("inside, refused"))
		return nil, boom
	})
	is.True(errors.Is(err, boom))           // the refusal is returned
	is.Equal(rows("mail_outbox"), int64(2)) // nothing written
	pending, err = fx.Pending()
	is.NoErr(err)
	is.Equal(len(pending), 1) // the effect added before the change stays
	is.Equal(pending[0].(ports.Mail).Subject, "before")

	_, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name = "Effects, renamed"
		fx.Add(mail("inside"))
		return []contract.AuditEntry{{Action: contract.ActionUpdated, Actor: contract.ActorUser, ActorUserID: uid, At: T0}}, nil
	})
	is.NoErr(err)                           // the next change commits
	is.Equal(rows("mail_outbox"), int64(4)) // with the effect kept and its own

	// A Deferred effect that fails fails its change.
	ctx, fx = ports.WithEffects(context.Background())
	fx.Add(ports.Deferred(func(int64) (ports.Effect, error) { return nil, boom }))
	_, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name = "Not saved"
		return nil, nil
	})
	is.True(err != nil) // the change fails with its effect
	got, err := s.Contracts.Contract(context.Background(), c.ID)
	is.NoErr(err)
	is.Equal(got.Name, "Effects, renamed") // and is not saved
	is.Equal(rows("mail_outbox"), int64(4))

	// A context without Effects writes none and fails nothing.
	_, err = s.Contracts.UpdateContract(context.Background(), c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name = "Plain"
		return nil, nil
	})
	is.NoErr(err)
}
