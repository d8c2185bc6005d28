package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

func TestStatusNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var names []string
	for i, s := range AllStatuses() {
		is.Equal(int(s), i+1) // codes are 1..8 in order
		names = append(names, s.String())
	}
	is.Equal(strings.Join(names, ","), "Draft,ContractDesign,WaitingForClientSignature,Signed,Declined,Expired,Terminated,Archived") // wire names
	is.Equal(Status(0).String(), "Status(0)")                                                                                        // out of range
	is.True(!Status(9).Valid())                                                                                                      // 9 is not a status
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Status
	}{
		{"Draft", Draft},
		{"draft", Draft},
		{"DRAFT", Draft},
		{"Contract Design", ContractDesign},
		{"contract-design", ContractDesign},
		{"waiting_for_client_signature", WaitingForClientSignature},
		{"Waiting For Client Signature", WaitingForClientSignature},
		{" Signed ", Signed},
		{"3", WaitingForClientSignature},
		{" 8 ", Archived},
		{"1", Draft},
		{"expired", Expired},
		{"TERMINATED", Terminated},
		{"Declined", Declined},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := ParseStatus(tt.in)
			is.NoErr(err)          // parse
			is.Equal(got, tt.want) // status
		})
	}
}

func TestParseStatusRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "0", "9", "-3", "+3", "03x", "Unknown", "Draft!", "Draf", "3.0", "Drafts"} {
		t.Run(in, func(t *testing.T) {
			is := is.New(t)
			_, err := ParseStatus(in)
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // 400
			var e *domain.Error
			is.True(asError(err, &e))                                                                                                                                                      // a *domain.Error
			is.Equal(e.Message, "status must be one of Draft (1), ContractDesign (2), WaitingForClientSignature (3), Signed (4), Declined (5), Expired (6), Terminated (7), Archived (8)") // lists the values
			is.Equal(e.Fields["status"], []string{e.Message})                                                                                                                              // filed under status
		})
	}
}

func TestParseType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Type
	}{
		{"ServiceAgreement", ServiceAgreement},
		{"Service Agreement", ServiceAgreement},
		{"employment_contract", EmploymentContract},
		{"Non-Disclosure Agreement", NonDisclosureAgreement},
		{"partnershipagreement", PartnershipAgreement},
		{"License Agreement", LicenseAgreement},
		{"other", Other},
		{"6", Other},
		{"1", ServiceAgreement},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := ParseType(tt.in)
			is.NoErr(err)          // parse
			is.Equal(got, tt.want) // type
			back, err := ParseType(got.String())
			is.NoErr(err)           // parse the wire name
			is.Equal(back, tt.want) // round trip
		})
	}
}

func TestParseTypeRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "0", "7", "Licence", "NDA"} {
		t.Run(in, func(t *testing.T) {
			is := is.New(t)
			_, err := ParseType(in)
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // 400
			var e *domain.Error
			is.True(asError(err, &e))                                                                                                                                                              // a *domain.Error
			is.Equal(e.Message, "contractType must be one of ServiceAgreement (1), EmploymentContract (2), NonDisclosureAgreement (3), PartnershipAgreement (4), LicenseAgreement (5), Other (6)") // lists the values
			is.Equal(len(e.Fields["contractType"]), 1)                                                                                                                                             // filed under contractType
		})
	}
}

func TestTypeNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var names []string
	for i, ty := range AllTypes() {
		is.Equal(int(ty), i+1) // codes are 1..6 in order
		names = append(names, ty.String())
	}
	is.Equal(strings.Join(names, ","), "ServiceAgreement,EmploymentContract,NonDisclosureAgreement,PartnershipAgreement,LicenseAgreement,Other") // wire names
	is.Equal(Type(7).String(), "Type(7)")                                                                                                        // out of range
}

func TestActorNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.Equal(ActorUser.String(), "user")                        // rendered by the caller as the user's name
	is.Equal(ActorSigningProvider.String(), "signing provider") // audit name
	is.Equal(ActorSystem.String(), "system")                    // audit name
	is.Equal(Actor(0).String(), "Actor(0)")                     // out of range
}

func asError(err error, target **domain.Error) bool { return errors.As(err, target) }
