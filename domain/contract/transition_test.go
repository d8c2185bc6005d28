package contract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

// allowedEdges is the state machine written down again, by hand, from
// docs/decisions.md §5 and docs/spec.md section 3, independently of the table
// in transition.go. "*" stands for every status. A change from a status to
// itself is always allowed and not listed.
const allowedEdges = `
user     non-digital  *                          *
user     digital      Draft                      ContractDesign
user     digital      ContractDesign             Draft
user     digital      Declined                   Draft
user     digital      Declined                   ContractDesign
user     digital      Signed                     Expired
provider digital      WaitingForClientSignature  Signed
provider digital      WaitingForClientSignature  Declined
provider digital      WaitingForClientSignature  Expired
system   non-digital  Signed                     Expired
system   digital      Signed                     Expired
`

// key identifies one combination of the 8×8×3×2 space.
type key struct {
	from, to Status
	actor    Actor
	digital  bool
}

// expectedAllowed expands allowedEdges without using the code under test.
func expectedAllowed(t *testing.T) map[key]bool {
	statuses := map[string]Status{
		"Draft": 1, "ContractDesign": 2, "WaitingForClientSignature": 3, "Signed": 4,
		"Declined": 5, "Expired": 6, "Terminated": 7, "Archived": 8,
	}
	actors := map[string]Actor{"user": ActorUser, "provider": ActorSigningProvider, "system": ActorSystem}
	expand := func(name string) []Status {
		if name == "*" {
			return []Status{1, 2, 3, 4, 5, 6, 7, 8}
		}
		s, ok := statuses[name]
		if !ok {
			t.Fatalf("unknown status %q in allowedEdges", name)
		}
		return []Status{s}
	}
	want := map[key]bool{}
	for _, line := range strings.Split(strings.TrimSpace(allowedEdges), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("bad line %q", line)
		}
		actor, ok := actors[f[0]]
		if !ok {
			t.Fatalf("unknown actor %q", f[0])
		}
		for _, from := range expand(f[2]) {
			for _, to := range expand(f[3]) {
				want[key{from, to, actor, f[1] == "digital"}] = true
			}
		}
	}
	for s := Status(1); s <= 8; s++ {
		for _, a := range actors {
			want[key{s, s, a, false}] = true
			want[key{s, s, a, true}] = true
		}
	}
	return want
}

func TestCheckTransitionEveryCombination(t *testing.T) {
	t.Parallel()
	want := expectedAllowed(t)
	n := 0
	for from := Status(1); from <= 8; from++ {
		for to := Status(1); to <= 8; to++ {
			for _, actor := range []Actor{ActorUser, ActorSigningProvider, ActorSystem} {
				for _, digital := range []bool{false, true} {
					n++
					k := key{from, to, actor, digital}
					name := fmt.Sprintf("%s/%s/%s/digital=%t", from, to, actor, digital)
					t.Run(name, func(t *testing.T) {
						is := is.New(t)
						err := CheckTransition(from, to, actor, digital)
						if want[k] {
							is.NoErr(err) // allowed by the hand-written table
							return
						}
						is.True(err != nil)                               // refused by the hand-written table
						is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // 409
						msg := domain.ErrorMessage(err)
						prefix := fmt.Sprintf("cannot change status from %s to %s: ", from, to)
						is.True(strings.HasPrefix(msg, prefix)) // names both statuses
						is.True(len(msg) > len(prefix))         // says why
					})
				}
			}
		}
	}
	if n != 8*8*3*2 {
		t.Fatalf("covered %d combinations, want 384", n)
	}
}

func TestRefusalMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to Status
		actor    Actor
		digital  bool
		want     string
	}{
		{Signed, Archived, ActorUser, true, "cannot change status from Signed to Archived: a digital contract can only expire after it is signed"},
		{Draft, Terminated, ActorUser, true, "cannot change status from Draft to Terminated: a digital contract cannot be Terminated or Archived"},
		{Draft, WaitingForClientSignature, ActorUser, true, "cannot change status from Draft to WaitingForClientSignature: a contract becomes WaitingForClientSignature only by submitting it for signing"},
		{WaitingForClientSignature, Signed, ActorUser, true, "cannot change status from WaitingForClientSignature to Signed: a digital contract waiting for signatures changes only through the signing provider"},
		{Draft, Signed, ActorUser, true, "cannot change status from Draft to Signed: only the signing provider marks a digital contract Signed or Declined"},
		{Draft, Expired, ActorUser, true, "cannot change status from Draft to Expired: a digital contract can only be marked Expired once it is Signed"},
		{Expired, Draft, ActorUser, true, "cannot change status from Expired to Draft: an expired digital contract cannot change status"},
		{WaitingForClientSignature, Signed, ActorSigningProvider, false, "cannot change status from WaitingForClientSignature to Signed: the signing provider only changes digital contracts"},
		{Draft, Signed, ActorSigningProvider, true, "cannot change status from Draft to Signed: the signing provider only changes a contract that is WaitingForClientSignature"},
		{WaitingForClientSignature, Draft, ActorSigningProvider, true, "cannot change status from WaitingForClientSignature to Draft: the signing provider only marks a contract Signed, Declined or Expired"},
		{Draft, Expired, ActorSystem, false, "cannot change status from Draft to Expired: the expiry sweep only moves Signed contracts to Expired"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			err := CheckTransition(tt.from, tt.to, tt.actor, tt.digital)
			is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // 409
			is.Equal(domain.ErrorMessage(err), tt.want)       // message
		})
	}
}

func TestCheckTransitionInvalidInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from, to Status
		actor    Actor
	}{
		{"from zero", 0, Draft, ActorUser},
		{"to nine", Draft, 9, ActorUser},
		{"same invalid", 0, 0, ActorUser},
		{"unknown actor", Draft, ContractDesign, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := CheckTransition(tt.from, tt.to, tt.actor, false)
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // 400
		})
	}
}

func TestNextStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from    Status
		actor   Actor
		digital bool
		want    []Status
	}{
		{Draft, ActorUser, true, []Status{ContractDesign}},
		{Declined, ActorUser, true, []Status{Draft, ContractDesign}},
		{Signed, ActorUser, true, []Status{Expired}},
		{WaitingForClientSignature, ActorUser, true, nil},
		{WaitingForClientSignature, ActorSigningProvider, true, []Status{Signed, Declined, Expired}},
		{Archived, ActorUser, false, []Status{Draft, ContractDesign, WaitingForClientSignature, Signed, Declined, Expired, Terminated}},
		{Signed, ActorSystem, false, []Status{Expired}},
		{0, ActorUser, false, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%t", tt.from, tt.actor, tt.digital), func(t *testing.T) {
			is := is.New(t)
			is.Equal(NextStatuses(tt.from, tt.actor, tt.digital), tt.want) // targets
		})
	}
}

func TestCheckSubmitForSigning(t *testing.T) {
	t.Parallel()
	for _, s := range AllStatuses() {
		t.Run(s.String(), func(t *testing.T) {
			is := is.New(t)
			err := CheckSubmitForSigning(s)
			if s == Draft || s == ContractDesign || s == Declined {
				is.NoErr(err) // may submit
				return
			}
			is.Equal(domain.ErrorCode(err), domain.ECONFLICT)                       // 409
			is.True(strings.Contains(domain.ErrorMessage(err), " "+s.String()+":")) // names the status
		})
	}
}

func TestCheckDelete(t *testing.T) {
	t.Parallel()
	for _, s := range AllStatuses() {
		t.Run(s.String(), func(t *testing.T) {
			is := is.New(t)
			err := CheckDelete(s)
			if s == Draft {
				is.NoErr(err) // Draft may be deleted
				return
			}
			is.Equal(domain.ErrorCode(err), domain.ECONFLICT)                         // 409
			is.Equal(domain.ErrorMessage(err), "only Draft contracts can be deleted") // exact detail
		})
	}
}
