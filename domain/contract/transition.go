package contract

import (
	"counsel/domain"
)

// anyStatus in a transition rule matches every status.
const anyStatus Status = 0

// transitions is the contract state machine: every allowed status change
// is one line. A change from a status to itself is always allowed (and
// does nothing), so it is not listed. Submitting for signing, the only way
// into WaitingForClientSignature for a digital contract, has its own
// check (CheckSubmitForSigning). The table is read-only.
var transitions = [...]struct {
	actor    Actor
	digital  bool
	from, to Status
}{
	// A non-digital contract is tracked by hand: any status to any other.
	{ActorUser, false, anyStatus, anyStatus},
	// A digital contract's content can be revised before it is sent...
	{ActorUser, true, Draft, ContractDesign},
	{ActorUser, true, ContractDesign, Draft},
	// ...and again after a party declined, to resubmit it.
	{ActorUser, true, Declined, Draft},
	{ActorUser, true, Declined, ContractDesign},
	// After signing, Expired is the only status left (spec 3, rule 2).
	{ActorUser, true, Signed, Expired},
	// The provider reports the outcome of a submission.
	{ActorSigningProvider, true, WaitingForClientSignature, Signed},
	{ActorSigningProvider, true, WaitingForClientSignature, Declined},
	{ActorSigningProvider, true, WaitingForClientSignature, Expired},
	// The sweep expires signed contracts whose end date has passed.
	{ActorSystem, false, Signed, Expired},
	{ActorSystem, true, Signed, Expired},
}

// allowed looks a change up in the table.
func allowed(from, to Status, actor Actor, digital bool) bool {
	for _, t := range transitions {
		if t.actor == actor && t.digital == digital &&
			(t.from == anyStatus || t.from == from) && (t.to == anyStatus || t.to == to) {
			return true
		}
	}
	return false
}

// CheckTransition decides whether actor may change a contract's status
// from from to to; digital tells whether the contract has a
// digitalContractId. It returns nil when the change is allowed, including
// from == to, which is an allowed no-op for every actor so that repeated
// webhooks and idempotent PUTs do not fail (use Contract.ChangeStatus or
// compare the statuses to skip the audit row). A refused change is an
// ECONFLICT *domain.Error naming both statuses and the reason; an unknown
// status or actor is EINVALID.
func CheckTransition(from, to Status, actor Actor, digital bool) error {
	if !from.Valid() || !to.Valid() {
		return domain.Errorf(domain.EINVALID, "cannot change status from %s to %s: unknown status", from, to)
	}
	if actor < ActorUser || actor > ActorSystem {
		return domain.Errorf(domain.EINVALID, "cannot change status from %s to %s: unknown actor %s", from, to, actor)
	}
	if from == to || allowed(from, to, actor, digital) {
		return nil
	}
	return domain.Errorf(domain.ECONFLICT, "cannot change status from %s to %s: %s", from, to, refusal(from, to, actor, digital))
}

// NextStatuses lists the statuses actor may move a contract in status from
// to, in code order, without from itself. A client can offer exactly these.
func NextStatuses(from Status, actor Actor, digital bool) []Status {
	var next []Status
	for _, to := range AllStatuses() {
		if to != from && from.Valid() && allowed(from, to, actor, digital) {
			next = append(next, to)
		}
	}
	return next
}

// refusal says why a change that is not in the table is refused. The
// order of the cases matters: the most specific reason comes first.
func refusal(from, to Status, actor Actor, digital bool) string {
	switch actor {
	case ActorSigningProvider:
		switch {
		case !digital:
			return "the signing provider only changes digital contracts"
		case from != WaitingForClientSignature:
			return "the signing provider only changes a contract that is WaitingForClientSignature"
		default:
			return "the signing provider only marks a contract Signed, Declined or Expired"
		}
	case ActorSystem:
		return "the expiry sweep only moves Signed contracts to Expired"
	}
	// A user changing a digital contract: everything else is allowed.
	switch {
	case from == Signed:
		return "a digital contract can only expire after it is signed"
	case to == Terminated || to == Archived:
		return "a digital contract cannot be Terminated or Archived"
	case from == WaitingForClientSignature:
		return "a digital contract waiting for signatures changes only through the signing provider"
	case to == WaitingForClientSignature:
		return "a contract becomes WaitingForClientSignature only by submitting it for signing"
	case to == Signed || to == Declined:
		return "only the signing provider marks a digital contract Signed or Declined"
	case to == Expired:
		return "a digital contract can only be marked Expired once it is Signed"
	case from == Expired:
		return "an expired digital contract cannot change status"
	}
	return "the change is not allowed for a digital contract"
}

// CheckSubmitForSigning decides whether a contract in status from may be
// submitted for signing: from Draft, ContractDesign or Declined (to
// resubmit after a decline). Otherwise it is an ECONFLICT naming the
// status.
func CheckSubmitForSigning(from Status) error {
	switch from {
	case Draft, ContractDesign, Declined:
		return nil
	}
	return domain.Errorf(domain.ECONFLICT,
		"cannot submit a contract for signing while it is %s: only Draft, ContractDesign or Declined contracts can be submitted", from)
}

// CheckDelete decides whether a contract in status s may be deleted: only
// a Draft may (spec 3, rule 1). Otherwise it is an ECONFLICT with the
// message "only Draft contracts can be deleted".
func CheckDelete(s Status) error {
	if s != Draft {
		return domain.Errorf(domain.ECONFLICT, "only Draft contracts can be deleted")
	}
	return nil
}
