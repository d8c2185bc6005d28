package http

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
)

// enumNames lists the values of an enumeration with their codes, for
// schemas and messages: "Draft (1), ContractDesign (2), ...".
func enumNames[T interface {
	~int
	String() string
}](values []T) (names []string, described string) {
	parts := make([]string, len(values))
	for i, v := range values {
		names = append(names, v.String())
		parts[i] = fmt.Sprintf("%s (%d)", v, int(v))
	}
	return names, strings.Join(parts, ", ")
}

func statusNames() []string { n, _ := enumNames(contract.AllStatuses()); return n }
func typeNames() []string   { n, _ := enumNames(contract.AllTypes()); return n }

// contractListParams documents the list filter (API-DECISIONS 5).
var contractListParams = append([]param{
	{"Search", str(), "case-insensitive substring of the name, description or comments (at most 200 characters)"},
	{"Status", arrayOf(coded(statusNames()...)), "repeatable (or comma-separated): any of the statuses, by name or code"},
	{"ContractType", arrayOf(coded(typeNames()...)), "repeatable (or comma-separated): any of the types, by name or code"},
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
	{"SortBy", names("contractName", "startDate", "endDate", "amount", "createdAt", "updatedAt"), "default updatedAt; the id breaks ties; contracts without the sorted value come first ascending, last descending"},
	{"SortDesc", boolean(), "default true"},
}, pagingParams...)

// contractRoutes are the contract module's routes, documents included.
func (s *server) contractRoutes() []route {
	h := s.needContracts
	rs := []route{
		{method: "GET", path: "/api/contracts", access: perm(account.ContractView), handler: h(s.handleContracts()),
			op: op{summary: "List contracts: filtered, sorted and paged", tag: "contracts", params: contractListParams, resp: pageOf("ContractListItem"), errs: []int{400}}},
		{method: "POST", path: "/api/contracts", access: perm(account.ContractCreate), handler: h(s.handleCreateContract()),
			op: op{summary: "Create a contract (always Draft)", tag: "contracts", body: ref("ContractCreate"), ok: 201, resp: ref("Contract"), errs: []int{400}}},
		{method: "POST", path: "/api/contracts/changeStatus", access: perm(account.ContractEdit), handler: h(s.handleChangeStatuses()),
			op: op{summary: "Change the status of several contracts, each on its own by the rules of PUT", tag: "contracts", body: ref("ContractStatusChange"), resp: ref("ContractStatusResults"), errs: []int{400}}},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractView), handler: h(s.handleContract()),
			op: op{summary: "One contract", tag: "contracts", resp: ref("Contract"), errs: []int{404}}},
		{method: "PUT", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractEdit), handler: h(s.handleUpdateContract()),
			op: op{summary: "Change a contract; a status change goes through the state machine", tag: "contracts", body: ref("ContractEdit"), resp: ref("Contract"), errs: []int{400, 404, 409}}},
		{method: "DELETE", path: "/api/contracts/{id:[0-9]+}", access: perm(account.ContractDelete), handler: h(s.handleDeleteContract()),
			op: op{summary: "Delete a Draft contract and its documents (409 otherwise); its history stays readable", tag: "contracts", ok: 204, errs: []int{404, 409}}},
		{method: "GET", path: "/api/contracts/{id:[0-9]+}/history", access: perm(account.ContractView), handler: h(s.handleContractHistory()),
			op: op{summary: "A contract's audit trail, newest first; also for a deleted contract", tag: "contracts", params: pagingParams, resp: pageOf("ContractHistoryEntry"), errs: []int{400, 404}}},
	}
	return append(rs, s.contractDocumentRoutes()...)
}

// needContracts answers 501 when the service has no contract module.
func (s *server) needContracts(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.Contracts != nil, "contracts are", h)
}

// need answers 501 in place of h when a module is not wired, so its
// routes (and the API reference) exist in every configuration.
func (s *server) need(available bool, what string, h http.HandlerFunc) http.Handler {
	if available {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.failf(w, r, domain.ENOTIMPLEMENTED, "%s not available in this configuration", what)
	})
}

type contractDTO struct {
	ID                          int64        `json:"id"`
	UUID                        string       `json:"contractUUId" doc:"UUID set on create"`
	Name                        string       `json:"contractName"`
	Description                 string       `json:"contractDescription"`
	Type                        string       `json:"contractType" ref:"ContractType"`
	Status                      string       `json:"status" ref:"ContractStatus"`
	StartDate                   *Time        `json:"startDate"`
	EndDate                     *Time        `json:"endDate"`
	Amount                      *json.Number `json:"amount" doc:"exact decimal, written with 2 decimals"`
	Currency                    string       `json:"currency" doc:"ISO 4217 code, upper case, or empty"`
	IsSigned                    bool         `json:"isSigned"`
	Comments                    string       `json:"comments"`
	MatterID                    *int64       `json:"matterId"`
	ClientID                    *int64       `json:"clientId"`
	ProjectID                   *int64       `json:"projectId"`
	DigitalContractID           *string      `json:"digitalContractId" doc:"the signing template id; null for a non-digital contract"`
	DigitalContractSubmissionID *string      `json:"digitalContractSubmissionId" doc:"the latest signing submission id"`
	CreatedAt                   Time         `json:"createdAt"`
	UpdatedAt                   Time         `json:"updatedAt"`
}

type contractListDTO struct {
	ID        int64        `json:"id"`
	UUID      string       `json:"contractUUId"`
	Name      string       `json:"contractName"`
	Type      string       `json:"contractType" ref:"ContractType"`
	Status    string       `json:"status" ref:"ContractStatus"`
	StartDate *Time        `json:"startDate"`
	EndDate   *Time        `json:"endDate"`
	Amount    *json.Number `json:"amount"`
	Currency  string       `json:"currency"`
	IsSigned  bool         `json:"isSigned"`
	IsDigital bool         `json:"isDigital" doc:"true when the contract has a digitalContractId"`
	MatterID  *int64       `json:"matterId"`
	ClientID  *int64       `json:"clientId"`
	ProjectID *int64       `json:"projectId"`
	UpdatedAt Time         `json:"updatedAt"`
}

// optMoney writes an optional amount with exactly two decimals, as a
// JSON number.
func optMoney(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	n := money(*d)
	return &n
}

// nonEmpty writes "" as null.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toContract(c contract.Contract) contractDTO {
	return contractDTO{
		ID: c.ID, UUID: c.UUID, Name: c.Name, Description: c.Description, Type: c.Type.String(), Status: c.Status.String(),
		StartDate: timePtr(c.StartDate), EndDate: timePtr(c.EndDate), Amount: optMoney(c.Amount), Currency: c.Currency,
		IsSigned: c.IsSigned, Comments: c.Comments, MatterID: c.MatterID, ClientID: c.ClientID, ProjectID: c.ProjectID,
		DigitalContractID: nonEmpty(c.DigitalContractID), DigitalContractSubmissionID: nonEmpty(c.DigitalContractSubmissionID),
		CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt),
	}
}

func toContractListItem(c contract.Contract) contractListDTO {
	return contractListDTO{
		ID: c.ID, UUID: c.UUID, Name: c.Name, Type: c.Type.String(), Status: c.Status.String(),
		StartDate: timePtr(c.StartDate), EndDate: timePtr(c.EndDate), Amount: optMoney(c.Amount), Currency: c.Currency,
		IsSigned: c.IsSigned, IsDigital: c.IsDigital(), MatterID: c.MatterID, ClientID: c.ClientID, ProjectID: c.ProjectID,
		UpdatedAt: Time(c.UpdatedAt),
	}
}

// queryEnum reads a repeatable enumeration parameter, whose values may
// also be comma-separated. An unknown value names the parameter and the
// accepted values.
func queryEnum[T interface {
	~int
	String() string
}](q url.Values, name string, all []T, parse func(string) (T, error), f domain.FieldErrors) []T {
	var out []T
	for _, v := range q[strings.ToLower(name)] {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			x, err := parse(part)
			if err != nil {
				_, accepted := enumNames(all)
				f.Add(name, name+" must be one of "+accepted)
				return nil
			}
			out = append(out, x)
		}
	}
	return out
}

// contractFilter reads the list filter from the query.
func contractFilter(r *http.Request) (contract.Filter, error) {
	q := query(r)
	e := domain.FieldErrors{}
	var f contract.Filter
	f.Limit, f.Offset = paging(q, e)
	f.Search = strings.TrimSpace(q.Get("search"))
	f.Statuses = queryEnum(q, "Status", contract.AllStatuses(), contract.ParseStatus, e)
	f.Types = queryEnum(q, "ContractType", contract.AllTypes(), contract.ParseType, e)
	f.IsSigned = queryBool(q, "IsSigned", "IsSigned", e)
	f.IsDigital = queryBool(q, "IsDigital", "IsDigital", e)
	f.MatterID = queryInt(q, "MatterId", "MatterId", e)
	f.ClientID = queryInt(q, "ClientId", "ClientId", e)
	f.ProjectID = queryInt(q, "ProjectId", "ProjectId", e)
	if v := q.Get("relatedentitytype"); v != "" {
		rel, err := contract.ParseRelatedEntity(v)
		if err != nil {
			e.Add("RelatedEntityType", domain.ErrorMessage(err))
		}
		f.Related = rel
	}
	f.RelatedID = queryInt(q, "RelatedEntityId", "RelatedEntityId", e)
	f.StartFrom = queryTime(q, "StartDateFrom", "StartDateFrom", e)
	f.StartTo = queryTime(q, "StartDateTo", "StartDateTo", e)
	f.EndFrom = queryTime(q, "EndDateFrom", "EndDateFrom", e)
	f.EndTo = queryTime(q, "EndDateTo", "EndDateTo", e)
	sortBy, err := contract.ParseSortField(q.Get("sortby"))
	if err != nil {
		e.Add("SortBy", domain.ErrorMessage(err))
	}
	f.SortBy = sortBy
	f.SortDesc = true
	if d := queryBool(q, "SortDesc", "SortDesc", e); d != nil {
		f.SortDesc = *d
	}
	if err := invalid(e); err != nil {
		return f, err
	}
	return f, detailed(f.Validate())
}

// detailed gives a validation error from the domain the detail of its
// field messages, like invalid.
func detailed(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Code == domain.EINVALID && len(de.Fields) > 0 {
		return invalid(de.Fields)
	}
	return err
}

// invalid is the 400 of field errors found by the adapter, whose detail
// repeats the messages so a client that reads only detail learns what is
// wrong (for instance which values an enumeration accepts).
func invalid(e domain.FieldErrors) error {
	if len(e) == 0 {
		return nil
	}
	names := make([]string, 0, len(e))
	for k := range e {
		names = append(names, k)
	}
	sort.Strings(names)
	var msgs []string
	for _, k := range names {
		msgs = append(msgs, e[k]...)
	}
	return &domain.Error{Code: domain.EINVALID, Message: strings.Join(msgs, "; "), Fields: e}
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

type statusResultsDTO struct {
	Results []statusResultDTO `json:"results"`
}

type statusResultDTO struct {
	ID     int64   `json:"id"`
	OK     bool    `json:"ok"`
	Status *string `json:"status" ref:"ContractStatus" doc:"the contract's status afterwards; null for an unknown id"`
	Error  *string `json:"error" doc:"why the change was refused; null when ok"`
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

type historyDTO struct {
	ID          int64   `json:"id"`
	Action      string  `json:"action" ref:"ContractAction"`
	FromStatus  *string `json:"fromStatus" ref:"ContractStatus"`
	ToStatus    *string `json:"toStatus" ref:"ContractStatus"`
	ActorUserID *int64  `json:"actorUserId" doc:"the user who acted; null for the system or the signing provider"`
	ActorName   string  `json:"actorName" doc:"the user's name at the time, \"system\" (expiry sweep) or \"signing provider\""`
	At          Time    `json:"at"`
	Details     string  `json:"details"`
}

func statusPtr(s contract.Status) *string {
	if !s.Valid() {
		return nil
	}
	return nonEmpty(s.String())
}

func toHistory(e contract.AuditEntry) historyDTO {
	d := historyDTO{ID: e.ID, Action: string(e.Action), FromStatus: statusPtr(e.From), ToStatus: statusPtr(e.To),
		ActorName: e.ActorName, At: Time(e.At), Details: e.Details}
	if e.Actor == contract.ActorUser && e.ActorUserID != 0 {
		id := e.ActorUserID
		d.ActorUserID = &id
	}
	return d
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
