package audit_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/audit"
	"counsel/domain/decimal"
)

type thing struct {
	ID                int64
	Name              string
	ProfilePictureURL string
	OfficeID          int64
	Rate              decimal.Decimal
	When              *time.Time
	Rel               *struct{ X int }
	hidden            int
}

func TestChanged(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := thing{ID: 1, Name: "a", Rate: decimal.New(1000, 2), When: &now}
	tests := []struct {
		name  string
		after func(thing) thing
		want  []string
	}{
		{"nothing", func(x thing) thing { return x }, []string{}},
		{"id and relations ignored", func(x thing) thing { x.ID, x.Rel, x.hidden = 2, &struct{ X int }{1}, 3; return x }, []string{}},
		{"equal decimal of another scale", func(x thing) thing { x.Rate = decimal.New(10, 0); return x }, []string{}},
		{"same time, other pointer", func(x thing) thing { t := now; x.When = &t; return x }, []string{}},
		{"names in API spelling", func(x thing) thing {
			x.Name, x.ProfilePictureURL, x.OfficeID, x.Rate, x.When = "b", "https://x", 3, decimal.New(2, 0), nil
			return x
		}, []string{"name", "profilePictureUrl", "officeId", "rate", "when"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(audit.Changed(base, tt.after(base)), tt.want)
		})
	}
	is := is.New(t)
	is.Equal(audit.Changed(base, 1), []string{}) // different types: nothing
}

func TestFilterValidate(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	from, to := time.Now(), time.Now().Add(-time.Hour)
	is.NoErr(audit.Filter{Actions: []string{audit.SignIn}}.Validate())
	is.True(audit.Filter{Actions: []string{"nope"}}.Validate() != nil)
	is.True(audit.Filter{From: &from, To: &to}.Validate() != nil)
	is.True(audit.Filter{Limit: -1}.Validate() != nil)
	is.Equal(len(audit.Actions()), 35) // the actions of docs/decisions.md §18, and a passkey counter going backwards (§20)
}
