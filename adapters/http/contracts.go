package http

import (
	"net/http"

	"counsel/domain"
	"counsel/domain/contract"
)

func statusNames() []string { n, _ := enumNames(contract.AllStatuses()); return n }
func typeNames() []string   { n, _ := enumNames(contract.AllTypes()); return n }

// contractListParams documents the list filter (docs/decisions.md §5).
var contractListParams = append([]param{
	{"Search", str(), "case-insensitive substring of the name, description or comments (at most 200 characters)"},
	{"Status", codedList("ContractStatus"), "repeatable (or comma-separated): any of the statuses, by name or code"},
	{"ContractType", codedList("ContractType"), "repeatable (or comma-separated): any of the types, by name or code"},
	{"IsSigned", boolean(), ""},
	{"IsDigital", boolean(), "true: contracts with a digitalContractId"},
	{"MatterId", integer(), ""},
	{"ClientId", integer(), ""},
	{"ProjectId", integer(), ""},
	{"RelatedEntityType", names("Matter", "Client", "Project"), "with RelatedEntityId: linked to that record; alone: linked to any record of that kind"},
	{"RelatedEntityId", integer(), "needs RelatedEntityType"},
	{"StartDateFrom", dateInSchema(), "inclusive"},
	{"StartDateTo", dateInSchema(), "inclusive"},
	{"EndDateFrom", dateInSchema(), "inclusive"},
	{"EndDateTo", dateInSchema(), "inclusive"},
	{"OwnerId", integer(), "the contracts this user owns"},
	{"NoticeDateFrom", dateInSchema(), "inclusive; the notice date is endDate minus noticeDays"},
	{"NoticeDateTo", dateInSchema(), "inclusive"},
	{"SortBy", names("contractName", "startDate", "endDate", "amount", "createdAt", "updatedAt"), "default updatedAt; the id breaks ties; contracts without the sorted value come first ascending, last descending"},
	{"SortDesc", boolean(), "default true"},
}, pagingParams...)

// The API reference entries of the contract routes (routes.go).
var (
	opContracts       = op{summary: "List contracts: filtered, sorted and paged", tag: "contracts", params: contractListParams, resp: ref("ContractListPageDto"), errs: []int{400}}
	opCreateContract  = op{summary: "Create a contract (always Draft)", tag: "contracts", body: ref("CreateContractInput"), ok: 201, resp: ref("ContractDto"), errs: []int{400}}
	opChangeStatuses  = op{summary: "Change the status of several contracts, each on its own by the rules of PUT", tag: "contracts", body: ref("ContractStatusChangeInput"), resp: ref("ContractStatusResultsDto"), errs: []int{400}}
	opContract        = op{summary: "One contract", tag: "contracts", resp: ref("ContractDto"), errs: []int{404}}
	opUpdateContract  = op{summary: "Change a contract; a status change goes through the state machine", tag: "contracts", body: ref("UpdateContractInput"), resp: ref("ContractDto"), errs: []int{400, 404, 409}}
	opDeleteContract  = op{summary: "Delete a Draft contract and its documents (409 otherwise); its history stays readable", tag: "contracts", ok: 204, errs: []int{404, 409}}
	opContractHistory = op{summary: "A contract's audit trail, newest first; also for a deleted contract", tag: "contracts", params: pagingParams, resp: ref("ContractHistoryEntryPageDto"), errs: []int{400, 404}}
)

// needContracts answers 501 when the service has no contract module.
func (s *server) needContracts(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.Contracts != nil, "contracts are", h)
}

// contractFilter reads the list filter from the query, by the reader the
// console uses too (contract.ParseFilter).
func contractFilter(r *http.Request) (contract.Filter, error) {
	f, err := contract.ParseFilter(r.URL.Query())
	return f, detailed(err)
}

func (s *server) handleContracts() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, err := contractFilter(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		cs, count, err := s.svc.Contracts.Contracts(r.Context(), f)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		items := make([]contractListDTO, len(cs))
		for i, c := range cs {
			items[i] = toContractListItem(c)
		}
		encode(w, http.StatusOK, newPage(items, count, f.Offset))
	}
}

func (s *server) handleContract() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		c, err := s.svc.Contracts.Contract(r.Context(), id)
		s.reply(w, r, http.StatusOK, toContract(c), err)
	}
}

func (s *server) handleCreateContract() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, err := decodeAs(r, contractIn.contract)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		c, err := s.svc.Contracts.CreateContract(r.Context(), in)
		if err == nil {
			w.Header().Set("Location", "/api/contracts/"+itoa(c.ID))
		}
		s.reply(w, r, http.StatusCreated, toContract(c), detailed(err))
	}
}

func (s *server) handleUpdateContract() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		e, err := decodeAs(r, contractIn.edit)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		c, err := s.svc.Contracts.UpdateContract(r.Context(), id, e)
		s.reply(w, r, http.StatusOK, toContract(c), detailed(err))
	}
}

func (s *server) handleDeleteContract() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Contracts.DeleteContract(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleChangeStatuses() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, err := decodeAs(r, statusChangeIn.statusChange)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		res, err := s.svc.Contracts.ChangeStatuses(r.Context(), in.ids, in.status)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out := make([]statusResultDTO, len(res))
		for i, x := range res {
			d := statusResultDTO{ID: x.ID, OK: x.OK}
			if x.Status.Valid() {
				d.Status = nonEmpty(x.Status.String())
			}
			if x.Err != nil {
				msg := domain.ErrorMessage(x.Err)
				d.Error = &msg
			}
			out[i] = d
		}
		encode(w, http.StatusOK, statusResultsDTO{Results: out})
	}
}

func (s *server) handleContractHistory() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		e := domain.FieldErrors{}
		limit, offset := paging(query(r), e)
		if err := invalid(e); err != nil {
			s.fail(w, r, err)
			return
		}
		entries, count, err := s.svc.Contracts.History(r.Context(), id, limit, offset)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		items := make([]historyDTO, len(entries))
		for i, en := range entries {
			items[i] = toHistory(en)
		}
		encode(w, http.StatusOK, newPage(items, count, offset))
	}
}
