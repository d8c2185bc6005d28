package console

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
)

// Contract pages: the list with every filter of the API's list, bulk
// status change, create, the detail page (fields, edit, status, history,
// documents) and delete. Which status changes a page offers is the use
// case's answer (StatusChoices, from domain/contract); the page never
// holds a table of its own.

func contractPath(id int64) string { return "/console/contracts/" + strconv.FormatInt(id, 10) }

// sortColumn is a sortable column's header link.
type sortColumn struct {
	Label, Field, Href string
	Active, Desc       bool
}

// contractsData is what the contracts list shows.
type contractsData struct {
	Items []contract.Contract
	pager
	Columns  map[string]sortColumn
	Statuses []contract.Status
	Types    []contract.Type
	Back     string // this list's address, for the bulk form
	Results  []bulkResult
	BulkTo   contract.Status
}

// bulkResult is one contract's outcome of a bulk status change.
type bulkResult struct {
	ID      int64
	Name    string
	OK      bool
	Changed bool
	Status  contract.Status
	Reason  string
}

// listURL returns /console/contracts with q changed by set.
func listURL(q url.Values, set map[string]string) string {
	return withQuery("/console/contracts", q, set)
}

// contractsList is the contracts table: the filters live in the query
// (a GET form, so a list can be bookmarked), every sortable column's
// header sorts, and the page shows 20 (Limit up to 100) with the exact
// count. With htmx the table is swapped in place.
func (c *console) contractsList(w http.ResponseWriter, r *http.Request, p *page) {
	q := r.URL.Query()
	p.Title = "Contracts"
	p.Form = q
	d := contractsData{Statuses: contract.AllStatuses(), Types: contract.AllTypes(), Back: listURL(q, nil)}
	f, ferr := contractFilter(q)
	if len(ferr) > 0 {
		p.Data = d
		p.Errors = ferr
		p.Error = "Please correct the filters marked below."
		// The order and the page have no input of their own to mark.
		for _, k := range []string{"SortBy", "SortDesc", "Limit", "Offset"} {
			for _, msg := range ferr[k] {
				p.Error += " " + msg + "."
			}
		}
		c.render(w, r, http.StatusBadRequest, "contracts", p)
		return
	}
	items, count, err := c.svc.Contracts.Contracts(r.Context(), f)
	if err != nil {
		p.Data = d
		c.formFail(w, r, p, "contracts", err)
		return
	}
	c.fillList(&d, q, f, items, count)
	p.Data = d
	c.render(w, r, 0, "contracts", p)
}

func (c *console) fillList(d *contractsData, q url.Values, f contract.Filter, items []contract.Contract, count int64) {
	d.Items = items
	d.pager = newPager("/console/contracts", q, f.Offset, f.Limit, len(items), count)
	d.Columns = map[string]sortColumn{}
	labels := map[contract.SortField]string{contract.SortContractName: "Name", contract.SortStartDate: "Start", contract.SortEndDate: "End",
		contract.SortAmount: "Amount", contract.SortCreatedAt: "Created", contract.SortUpdatedAt: "Updated"}
	for _, sf := range contract.AllSortFields() {
		col := sortColumn{Label: labels[sf], Field: sf.String(), Active: f.SortBy == sf, Desc: f.SortDesc}
		// A click on the sorted column reverses it; on another, names
		// start A-Z and the rest newest or largest first.
		desc := sf != contract.SortContractName
		if col.Active {
			desc = !f.SortDesc
		}
		col.Href = listURL(q, map[string]string{"SortBy": sf.String(), "SortDesc": strconv.FormatBool(desc), "Offset": ""})
		d.Columns[sf.String()] = col
	}
}

// contractsBulkStatus moves the ticked contracts to one status, each on
// its own by the state machine, and shows what happened to each.
func (c *console) contractsBulkStatus(w http.ResponseWriter, r *http.Request, p *page) {
	back := p.Form.Get("back")
	if !strings.HasPrefix(back, "/console/contracts") || strings.HasPrefix(back, "/console/contracts/") {
		back = "/console/contracts"
	}
	bu, _ := url.Parse(back)
	q := bu.Query()
	fe := domain.FieldErrors{}
	idList := ids(p.Form, "ids", fe)
	var to contract.Status
	if s := p.Form.Get("status"); s != "" {
		st, err := contract.ParseStatus(s)
		if err != nil {
			fe.Add("status", domain.ErrorMessage(err))
		}
		to = st
	}
	var results []bulkResult
	err := fe.Err()
	if err == nil {
		results, err = c.bulk(r.Context(), idList, to)
	}
	// The list again, as it was, with the outcome above it.
	p.Title = "Contracts"
	p.Form = q
	f, _ := contractFilter(q)
	d := contractsData{Statuses: contract.AllStatuses(), Types: contract.AllTypes(), Back: back, Results: results, BulkTo: to}
	items, count, lerr := c.svc.Contracts.Contracts(r.Context(), f)
	if lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.fillList(&d, q, f, items, count)
	p.Data = d
	if err != nil {
		if fe["ids"] == nil && fe["status"] == nil {
			c.formFail(w, r, p, "contracts", err)
			return
		}
		p.Errors = fe
		p.Error = "Please correct the fields marked below."
		c.render(w, r, http.StatusBadRequest, "contracts", p)
		return
	}
	c.render(w, r, 0, "contracts", p)
}

// bulk runs the use case's bulk change and names each contract.
func (c *console) bulk(ctx context.Context, idList []int64, to contract.Status) ([]bulkResult, error) {
	if len(idList) == 0 {
		return nil, domain.Invalid(map[string][]string{"ids": {"select at least one contract"}})
	}
	if !to.Valid() {
		return nil, domain.Invalid(map[string][]string{"status": {"choose the new status"}})
	}
	// The statuses before, to tell a change from a contract already there.
	before := map[int64]contract.Contract{}
	for _, id := range idList {
		if len(idList) > contract.MaxBulkIDs {
			break // the use case refuses so many
		}
		if ct, err := c.svc.Contracts.Contract(ctx, id); err == nil {
			before[id] = ct
		}
	}
	rs, err := c.svc.Contracts.ChangeStatuses(ctx, idList, to)
	if err != nil {
		return nil, err
	}
	out := make([]bulkResult, 0, len(rs))
	for _, x := range rs {
		b := bulkResult{ID: x.ID, OK: x.OK, Status: x.Status, Name: before[x.ID].Name}
		if b.Name == "" {
			b.Name = "Contract " + strconv.FormatInt(x.ID, 10)
		}
		if x.OK {
			b.Changed = before[x.ID].Status != x.Status
		} else {
			b.Reason = domain.ErrorMessage(x.Err)
		}
		out = append(out, b)
	}
	return out, nil
}

// contractFormData is what the create and edit forms need besides values.
type contractFormData struct {
	Types []contract.Type
}

func (c *console) contractNew(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New contract"
	p.Form.Set("contractType", contract.Other.String())
	p.Data = contractFormData{Types: contract.AllTypes()}
	c.render(w, r, 0, "contract_new", p)
}

func (c *console) contractCreate(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New contract"
	p.Data = contractFormData{Types: contract.AllTypes()}
	in, err := contractNew(p.Form)
	if err == nil {
		var ct contract.Contract
		if ct, err = c.svc.Contracts.CreateContract(r.Context(), in); err == nil {
			c.redirect(w, r, contractPath(ct.ID), "Created "+ct.Name+" as a Draft.")
			return
		}
	}
	c.formFail(w, r, p, "contract_new", err)
}

// historyPage is the number of history entries per page.
const historyPage = 10

// contractData is what the contract page shows.
type contractData struct {
	Contract    contract.Contract
	Types       []contract.Type
	Next        []contract.Status // the status changes offered
	NoChange    string            // why none is offered
	Documents   []contract.Document
	History     []contract.AuditEntry
	HistoryN    int64
	HistoryFrom int64
	HistoryPrev string
	HistoryNext string
	Deletable   bool
}

// contractPage loads the contract page into p; the form keeps what was
// submitted unless fromContract.
func (c *console) contractPage(ctx context.Context, r *http.Request, p *page, id int64, fromContract bool) error {
	ct, next, err := c.svc.Contracts.StatusChoices(ctx, id)
	if err != nil {
		return err
	}
	d := contractData{Contract: ct, Types: contract.AllTypes(), Next: next, Deletable: contract.CheckDelete(ct.Status) == nil}
	switch {
	case len(next) > 0:
	case !p.Principal.Can(account.ContractEdit):
		d.NoChange = "Changing the status needs the ContractEdit permission."
	default:
		d.NoChange = "A digital contract that is " + ct.Status.String() + " changes status only through signing."
	}
	if d.Documents, err = c.svc.Contracts.Documents(ctx, id); err != nil {
		return err
	}
	off, _ := strconv.ParseInt(r.URL.Query().Get("h"), 10, 64)
	off = max(0, off)
	if d.History, d.HistoryN, err = c.svc.Contracts.History(ctx, id, historyPage, off); err != nil {
		return err
	}
	d.HistoryFrom = off + 1
	path := contractPath(id)
	if off > 0 {
		d.HistoryPrev = path + "?h=" + strconv.FormatInt(max(0, off-historyPage), 10) + "#history"
	}
	if off+int64(len(d.History)) < d.HistoryN {
		d.HistoryNext = path + "?h=" + strconv.FormatInt(off+historyPage, 10) + "#history"
	}
	if fromContract {
		p.Form = contractValues(ct)
	}
	p.Title = ct.Name
	p.Data = d
	return nil
}

func (c *console) contractShow(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.contractPage(r.Context(), r, p, pathID(r), true); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "contract", p)
}

// contractFail shows the contract page again with the submitted form and
// err next to its field (or as a banner).
func (c *console) contractFail(w http.ResponseWriter, r *http.Request, p *page, id int64, keepForm bool, err error) {
	if lerr := c.contractPage(r.Context(), r, p, id, !keepForm); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "contract", err)
}

// contractUpdate saves the edit form; fields absent from it keep their
// value.
func (c *console) contractUpdate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	e, err := contractEdit(p.Form)
	if err == nil {
		if _, err = c.svc.Contracts.UpdateContract(r.Context(), id, e); err == nil {
			c.redirect(w, r, contractPath(id), "Saved.")
			return
		}
	}
	c.contractFail(w, r, p, id, true, err)
}

// contractStatus changes one contract's status.
func (c *console) contractStatus(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	st, err := contract.ParseStatus(p.Form.Get("status"))
	if err == nil {
		if _, err = c.svc.Contracts.UpdateContract(r.Context(), id, contract.Edit{Status: &st}); err == nil {
			c.redirect(w, r, contractPath(id), "Status changed to "+st.String()+".")
			return
		}
	}
	c.contractFail(w, r, p, id, false, err)
}

// contractDeletePage fills p with the contract to delete.
func (c *console) contractDeletePage(ctx context.Context, p *page, id int64) (contract.Contract, error) {
	ct, err := c.svc.Contracts.Contract(ctx, id)
	if err != nil {
		return ct, err
	}
	p.Title = "Delete " + ct.Name
	p.Data = ct
	return ct, nil
}

func (c *console) contractDeleteConfirm(w http.ResponseWriter, r *http.Request, p *page) {
	ct, err := c.contractDeletePage(r.Context(), p, pathID(r))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	if err := contract.CheckDelete(ct.Status); err != nil {
		p.Error = "This contract is " + ct.Status.String() + ": " + domain.ErrorMessage(err) + "."
	}
	c.render(w, r, 0, "contract_delete", p)
}

func (c *console) contractDelete(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Contracts.DeleteContract(r.Context(), id); err != nil {
		if _, lerr := c.contractDeletePage(r.Context(), p, id); lerr != nil {
			c.fail(w, r, p, err)
			return
		}
		c.formFail(w, r, p, "contract_delete", err)
		return
	}
	c.redirect(w, r, "/console/contracts", "Deleted. Its history is kept.")
}

// humanEnum spells a status or type for people: "WaitingForClientSignature"
// becomes "Waiting for client signature".
func humanEnum(v interface{ String() string }) string {
	s := v.String()
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
