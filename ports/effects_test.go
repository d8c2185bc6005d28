package ports_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"counsel/ports"
)

func TestEffectsRollbackKeepsWhatCameBefore(t *testing.T) {
	is := is.New(t)
	ctx, fx := ports.WithEffects(context.Background())
	again, same := ports.WithEffects(ctx)
	is.Equal(same, fx)   // a context keeps one Effects
	is.Equal(again, ctx) // and is returned as is
	fx.Add(ports.Mail{Subject: "a"})
	m := fx.Begin()
	fx.Add(ports.Mail{Subject: "b"}, ports.Mail{Subject: "c"})
	ports.Created(ctx, 7)
	fx.Rollback(m)
	p, err := fx.Pending()
	is.NoErr(err)
	is.Equal(len(p), 1) // only what came before the transaction
	m = fx.Begin()
	var saw int64 = -1
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) { saw = id; return nil, nil }))
	ports.Created(ctx, 9)
	p, err = fx.Pending()
	is.NoErr(err)
	is.Equal(saw, int64(9)) // a Deferred effect gets the created id
	is.Equal(len(p), 1)     // and may resolve to nothing
	fx.Committed()
	p, _ = fx.Pending()
	is.Equal(len(p), 0) // committed effects are forgotten
	_ = m

	var none *ports.Effects // a nil Effects is no effects
	none.Rollback(none.Begin())
	p, err = none.Pending()
	is.NoErr(err)
	is.Equal(len(p), 0)
	none.Committed()
}
