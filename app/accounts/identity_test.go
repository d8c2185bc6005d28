package accounts

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
)

func TestNames(t *testing.T) {
	long := strings.Repeat("é", 150)
	tests := []struct {
		name        string
		id          account.ExternalIdentity
		email       string
		first, last string
	}{
		{"given and family", account.ExternalIdentity{GivenName: "Ada", FamilyName: "Lovelace", Name: "Countess"}, "a@x.example", "Ada", "Lovelace"},
		{"family only keeps the local part as first name", account.ExternalIdentity{FamilyName: "Lovelace"}, "ada.l@x.example", "ada.l", "Lovelace"},
		{"full name split at the first space", account.ExternalIdentity{Name: " Grace\tBrewster  Hopper "}, "g@x.example", "Grace", "Brewster Hopper"},
		{"one-word name", account.ExternalIdentity{Name: "Cher"}, "c@x.example", "Cher", ""},
		{"no name", account.ExternalIdentity{}, "katherine.j@x.example", "katherine.j", ""},
		{"white space collapsed", account.ExternalIdentity{GivenName: "  Mary \n Jane ", FamilyName: " Watson "}, "m@x.example", "Mary Jane", "Watson"},
		{"bounded length", account.ExternalIdentity{GivenName: long, FamilyName: long}, "l@x.example", long[:2*maxNameRunes], long[:2*maxNameRunes]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			first, last := names(tt.id, tt.email)
			is.Equal(first, tt.first) // first name
			is.Equal(last, tt.last)   // last name
		})
	}
}

func TestEmailDomain(t *testing.T) {
	is := is.New(t)
	is.Equal(emailDomain("ada@example.com"), "example.com")           // after the @
	is.Equal(emailDomain("a@b@mail.example.com"), "mail.example.com") // after the last @
}
